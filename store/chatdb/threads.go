package chatdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Mapping is a chat_thread_mappings row.
type Mapping struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	TicketID  uuid.UUID `db:"ticket_id"`
	ChannelID string    `db:"channel_id"`
	ThreadTS  string    `db:"thread_ts"`
	CreatedAt time.Time `db:"created_at"`
}

func mappingColumns() []string {
	return []string{"id", "org_id", "ticket_id", "channel_id", "thread_ts", "created_at"}
}

// InsertMapping adds a mapping; a thread the org already mapped is
// store.ErrConflict (another org's mapping of it is not).
func InsertMapping(ctx context.Context, q store.Querier, m Mapping) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("chat_thread_mappings").Columns(mappingColumns()...).
		Values(m.ID, m.OrgID, m.TicketID, m.ChannelID, m.ThreadTS, m.CreatedAt))
	return err
}

// MappingsPage lists a ticket's mappings in creation order.
func MappingsPage(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, p store.Page) (store.Paged[Mapping], error) {
	b := store.SQL.Select(mappingColumns()...).From("chat_thread_mappings").Where(sq.Eq{"org_id": orgID, "ticket_id": ticketID})
	return store.SelectPage(ctx, q, b, "id", p, func(m Mapping) uuid.UUID { return m.ID })
}

// LatestMapping is a ticket's most recent mapping (notifications go there).
func LatestMapping(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID) (Mapping, error) {
	return store.Get[Mapping](ctx, q, store.SQL.Select(mappingColumns()...).From("chat_thread_mappings").
		Where(sq.Eq{"org_id": orgID, "ticket_id": ticketID}).OrderBy("id DESC").Limit(1))
}

// MappingOfThread reads an org's mapping of a thread.
func MappingOfThread(ctx context.Context, q store.Querier, orgID uuid.UUID, channelID, threadTS string) (Mapping, error) {
	return store.Get[Mapping](ctx, q, store.SQL.Select(mappingColumns()...).From("chat_thread_mappings").
		Where(sq.Eq{"org_id": orgID, "channel_id": channelID, "thread_ts": threadTS}))
}

// OpenMappingsOfThread lists a thread's mappings in the orgs that
// workspaces connected to no org may reach (at most two are read: one is
// the answer, two are ambiguous).
func OpenMappingsOfThread(ctx context.Context, q store.Querier, channelID, threadTS string) ([]Mapping, error) {
	return store.SelectRaw[Mapping](ctx, q, `SELECT `+store.Cols(store.Prefixed("m", mappingColumns()))+`
		FROM chat_thread_mappings m WHERE m.channel_id = $1 AND m.thread_ts = $2 AND `+openOrg("m.org_id")+`
		ORDER BY m.id LIMIT 2`, channelID, threadTS)
}

// Subscription is a chat_subscriptions row.
type Subscription struct {
	ID         uuid.UUID `db:"id"`
	OrgID      uuid.UUID `db:"org_id"`
	ChannelID  string    `db:"channel_id"`
	EventTypes []string  `db:"event_types"`
	CreatedAt  time.Time `db:"created_at"`
}

// UpsertSubscription sets the event types a channel of an org follows.
func UpsertSubscription(ctx context.Context, q store.Querier, s Subscription) (Subscription, error) {
	return store.GetRaw[Subscription](ctx, q, `INSERT INTO chat_subscriptions (id, org_id, channel_id, event_types, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (org_id, channel_id) DO UPDATE SET event_types = EXCLUDED.event_types
		RETURNING id, org_id, channel_id, event_types, created_at`, s.ID, s.OrgID, s.ChannelID, s.EventTypes, s.CreatedAt)
}

// SubscriptionsFor lists an org's subscriptions following eventType.
func SubscriptionsFor(ctx context.Context, q store.Querier, orgID uuid.UUID, eventType string) ([]Subscription, error) {
	return store.SelectRaw[Subscription](ctx, q, `SELECT id, org_id, channel_id, event_types, created_at
		FROM chat_subscriptions WHERE org_id = $1 AND event_types @> ARRAY[$2::text] ORDER BY id`, orgID, eventType)
}

// SubscriptionsPage lists an org's subscriptions.
func SubscriptionsPage(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Subscription], error) {
	b := store.SQL.Select("id", "org_id", "channel_id", "event_types", "created_at").From("chat_subscriptions").Where(sq.Eq{"org_id": orgID})
	return store.SelectPage(ctx, q, b, "id", p, func(s Subscription) uuid.UUID { return s.ID })
}

// ProjectKey is the key of a project of orgID ("" if gone).
func ProjectKey(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) (string, error) {
	k, err := store.Scalar[string](ctx, q, store.SQL.Select("key").From("projects").Where(sq.Eq{"org_id": orgID, "id": projectID}))
	if err == store.ErrNotFound {
		return "", nil
	}
	return k, err
}
