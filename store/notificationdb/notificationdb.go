// Package notificationdb holds the SQL of personal notifications: ticket
// watchers, the inbox rows and each person's delivery settings.
package notificationdb

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"tracker/internal/civil"
	"tracker/internal/traceparent"
	"tracker/store"
)

// TopicCreated is the outbox topic of a new notification: one row per
// notification (its id is the notification's), which email and chat
// delivery consume.
const TopicCreated = "notification.created"

// New is a notification to write: the insert keeps only the recipients who
// can read its project (store's member_reads) and have not turned its type
// off.
type New struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	Type      string
	OrgID     uuid.UUID
	ProjectID *uuid.UUID
	TicketID  *uuid.UUID
	ActorID   *uuid.UUID
	Excerpt   string
	CreatedAt time.Time
	// DueOn is the due date a due_soon notification is about: one per
	// person, ticket and date (a second is not written).
	DueOn *civil.Date
}

// Insert writes the notifications that pass the recipient checks, with one
// outbox row each (TopicCreated), in one statement, and returns the ids
// written. Run it in the transaction of the change that caused them.
func Insert(ctx context.Context, q store.Querier, ns []New) ([]uuid.UUID, error) {
	if len(ns) == 0 {
		return nil, nil
	}
	n := len(ns)
	ids, users, types, orgs := make([]uuid.UUID, n), make([]uuid.UUID, n), make([]string, n), make([]uuid.UUID, n)
	projects, tickets, actors := make([]*uuid.UUID, n), make([]*uuid.UUID, n), make([]*uuid.UUID, n)
	excerpts, ats, dues := make([]string, n), make([]time.Time, n), make([]*civil.Date, n)
	for i, x := range ns {
		ids[i], users[i], types[i], orgs[i] = x.ID, x.UserID, x.Type, x.OrgID
		projects[i], tickets[i], actors[i] = x.ProjectID, x.TicketID, x.ActorID
		excerpts[i], ats[i], dues[i] = x.Excerpt, x.CreatedAt, x.DueOn
	}
	written, err := store.Column[uuid.UUID](ctx, q, insertSQL, ids, users, types, orgs, projects, tickets, actors, excerpts, ats, traceparent.Arg(ctx), dues)
	if err != nil || len(written) == 0 {
		return written, err
	}
	return written, store.MarkOutbox(ctx, q)
}

const insertSQL = `WITH x AS (
	    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::uuid[], $8::text[], $9::timestamptz[], $11::date[])
	        AS x(id, user_id, type, org_id, project_id, ticket_id, actor_id, excerpt, created_at, due_on)
	    WHERE member_reads(x.org_id, x.project_id, x.user_id)
	      AND NOT EXISTS (SELECT 1 FROM notification_settings s WHERE s.user_id = x.user_id AND x.type = ANY (s.types_off))),
	n AS (
	    INSERT INTO notifications (id, org_id, user_id, type, ticket_id, project_id, actor_id, excerpt, created_at, due_on)
	    SELECT id, org_id, user_id, type, ticket_id, project_id, actor_id, excerpt, created_at, due_on FROM x
	    ON CONFLICT (user_id, ticket_id, due_on) WHERE type = 'due_soon' DO NOTHING
	    RETURNING id, org_id, user_id, type, ticket_id, actor_id, excerpt, created_at),
	o AS (
	    INSERT INTO outbox (id, org_id, topic, payload, created_at, traceparent)
	    SELECT id, org_id, '` + TopicCreated + `', jsonb_build_object('id', id, 'org_id', org_id, 'user_id', user_id, 'type', type,
	        'ticket_id', ticket_id, 'actor_id', actor_id, 'excerpt', excerpt, 'created_at', created_at), created_at, $10 FROM n)
	SELECT id FROM n`

// Row is a notification as the inbox shows it: the ticket's key and title
// and the actor's name are read when it is shown, so they are current.
type Row struct {
	ID          uuid.UUID  `db:"id"`
	OrgID       uuid.UUID  `db:"org_id"`
	Type        string     `db:"type"`
	TicketID    *uuid.UUID `db:"ticket_id"`
	TicketKey   *string    `db:"ticket_key"`
	TicketTitle *string    `db:"ticket_title"`
	ActorID     *uuid.UUID `db:"actor_id"`
	ActorName   *string    `db:"actor_name"`
	Excerpt     string     `db:"excerpt"`
	CreatedAt   time.Time  `db:"created_at"`
	ReadAt      *time.Time `db:"read_at"`
}

// Filter is what of a person's inbox a caller may see and asked for.
type Filter struct {
	UserID uuid.UUID
	// OrgID keeps one org's (uuid.Nil: every org).
	OrgID uuid.UUID
	// NotOrgs are orgs the caller may not reach (single sign-on only).
	NotOrgs []uuid.UUID
	// Projects keeps the notifications of these projects only (an API key
	// restricted to projects); nil: all.
	Projects   []uuid.UUID
	UnreadOnly bool
}

// visible is the WHERE of a caller's inbox, over notifications n (joined
// with its live ticket t, NULL when it has none or it is gone): their own,
// as filtered, of a ticket still live, and of what they can still read.
// Args $1..$5 are Filter's.
const visible = `n.user_id = $1
	AND ($2::uuid IS NULL OR n.org_id = $2)
	AND NOT (n.org_id = ANY ($3::uuid[]))
	AND ($4::uuid[] IS NULL OR n.project_id = ANY ($4::uuid[]))
	AND (NOT $5::bool OR n.read_at IS NULL)
	AND (n.ticket_id IS NULL OR EXISTS (SELECT 1 FROM tickets t JOIN projects p ON p.id = t.project_id
	     WHERE t.id = n.ticket_id AND t.deleted_at IS NULL AND p.deleted_at IS NULL))
	AND member_reads(n.org_id, n.project_id, n.user_id)`

func (f Filter) args() []any {
	var org *uuid.UUID
	if f.OrgID != uuid.Nil {
		org = &f.OrgID
	}
	not := f.NotOrgs
	if not == nil {
		not = []uuid.UUID{}
	}
	return []any{f.UserID, org, not, f.Projects, f.UnreadOnly}
}

const rowSQL = `SELECT n.id, n.org_id, n.type, n.ticket_id, p.key || '-' || t.ticket_number AS ticket_key, t.title AS ticket_title,
	    n.actor_id, u.display_name AS actor_name, n.excerpt, n.created_at, n.read_at
	FROM notifications n
	LEFT JOIN tickets t ON t.id = n.ticket_id
	LEFT JOIN projects p ON p.id = t.project_id
	LEFT JOIN users u ON u.id = n.actor_id
	WHERE ` + visible

// List pages a caller's inbox newest first: Page.After is the last id of
// the previous page, so the next page holds the older ids.
func List(ctx context.Context, q store.Querier, f Filter, page store.Page) (store.Paged[Row], error) {
	args := append(f.args(), page.Limit+1)
	sql := rowSQL
	if page.After != uuid.Nil {
		args = append(args, page.After)
		sql += ` AND n.id < $7`
	}
	rows, err := store.SelectRaw[Row](ctx, q, sql+` ORDER BY n.id DESC LIMIT $6`, args...)
	if err != nil {
		return store.Paged[Row]{}, err
	}
	out := store.Paged[Row]{Items: rows}
	if len(rows) > page.Limit {
		out.Items = rows[:page.Limit]
		next := out.Items[page.Limit-1].ID
		out.Next = &next
	}
	return out, nil
}

// Position is a place in a person's live stream: the transaction that
// wrote a notification and its id (schema/migrations/061). The zero
// Position is before every notification.
type Position struct {
	Txid uint64
	ID   uuid.UUID
}

// Streamed is a row of a live stream: the notification and its position.
type Streamed struct {
	Row
	Txid string `db:"txid_text"` // xid8 as text: pgx has no xid8 codec
}

// Position is where a stream stands after r.
func (r Streamed) Position() (Position, error) {
	n, err := strconv.ParseUint(r.Txid, 10, 64)
	return Position{Txid: n, ID: r.ID}, err
}

// After is the caller's visible notifications after pos in (txid, id)
// order, at most limit: what a live stream sends next. Only rows whose
// transaction is below the snapshot's xmin are read (every transaction that
// has not ended is at or above it), so no row can later commit before a
// position already passed; the others are left for a later read.
func After(ctx context.Context, q store.Querier, f Filter, pos Position, limit int) ([]Streamed, error) {
	args := append(f.args(), strconv.FormatUint(pos.Txid, 10), pos.ID, limit)
	return store.SelectRaw[Streamed](ctx, q, afterSQL, args...)
}

const afterSQL = `SELECT n.id, n.org_id, n.type, n.ticket_id, p.key || '-' || t.ticket_number AS ticket_key, t.title AS ticket_title,
	    n.actor_id, u.display_name AS actor_name, n.excerpt, n.created_at, n.read_at, n.txid::text AS txid_text
	FROM notifications n
	LEFT JOIN tickets t ON t.id = n.ticket_id
	LEFT JOIN projects p ON p.id = t.project_id
	LEFT JOIN users u ON u.id = n.actor_id
	WHERE ` + visible + `
	  AND (n.txid, n.id) > ($6::text::xid8, $7::uuid)
	  AND n.txid < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY n.txid, n.id LIMIT $8`

// At is the position of the person's notification id; store.ErrNotFound:
// none such of theirs.
func At(ctx context.Context, q store.Querier, userID, id uuid.UUID) (Position, error) {
	txids, err := store.Column[string](ctx, q, `SELECT txid::text FROM notifications WHERE user_id = $1 AND id = $2`, userID, id)
	if err != nil {
		return Position{}, err
	}
	if len(txids) == 0 {
		return Position{}, store.ErrNotFound
	}
	n, err := strconv.ParseUint(txids[0], 10, 64)
	return Position{Txid: n, ID: id}, err
}

// Now is the position of a stream of userID that starts now: before every
// row whose transaction had not ended (the snapshot's xmin), after every
// other; and the ids of the person's rows from that position on that had
// committed already, which such a stream skips.
func Now(ctx context.Context, q store.Querier, userID uuid.UUID) (Position, []uuid.UUID, error) {
	var xmin string
	var committed []uuid.UUID
	err := q.QueryRow(ctx, `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
		SELECT h.xmin::text, ARRAY(SELECT id FROM notifications WHERE user_id = $1 AND txid >= h.xmin) FROM h`, userID).Scan(&xmin, &committed)
	if err != nil {
		return Position{}, nil, store.Translate(err)
	}
	n, err := strconv.ParseUint(xmin, 10, 64)
	return Position{Txid: n}, committed, err
}

// Newest is the id of the caller's newest notification (uuid.Nil: none),
// visible or not: where a stream without Last-Event-ID starts.
func Newest(ctx context.Context, q store.Querier, userID uuid.UUID) (uuid.UUID, error) {
	ids, err := store.Column[uuid.UUID](ctx, q, `SELECT id FROM notifications WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, userID)
	if err != nil || len(ids) == 0 {
		return uuid.Nil, err
	}
	return ids[0], nil
}

// UnreadCount counts the caller's visible unread notifications.
func UnreadCount(ctx context.Context, q store.Querier, f Filter) (int64, error) {
	f.UnreadOnly = true
	var n int64
	err := q.QueryRow(ctx, `SELECT count(*) FROM notifications n WHERE `+visible, f.args()...).Scan(&n)
	return n, store.Translate(err)
}

// MarkRead marks one of the caller's visible notifications read (a read one
// keeps its time); another person's or an invisible one is store.ErrNotFound.
func MarkRead(ctx context.Context, q store.Querier, f Filter, id uuid.UUID, at time.Time) error {
	args := append(f.args(), id, at)
	tag, err := q.Exec(ctx, `UPDATE notifications n SET read_at = COALESCE(n.read_at, $7) WHERE n.id = $6 AND `+visible, args...)
	if err != nil {
		return store.Translate(err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// MarkAllRead marks every visible unread notification of the caller read.
func MarkAllRead(ctx context.Context, q store.Querier, f Filter, at time.Time) error {
	f.UnreadOnly = true
	args := append(f.args(), at)
	_, err := q.Exec(ctx, `UPDATE notifications n SET read_at = $6 WHERE `+visible, args...)
	return store.Translate(err)
}

// Ended is who, of a process's streaming people, has notifications whose
// transactions ended since the previous look, and the horizon to look from
// next.
type Ended struct {
	Horizon uint64
	Users   []uuid.UUID
	// Waiting: some of users have rows committed at or above the horizon,
	// readable once the older transactions still running end.
	Waiting bool
}

// EndedSince reads which of users have notifications with txid from since
// (nil: nobody; the first look) up to the snapshot's xmin, and that xmin:
// every row a stream can newly read lies in exactly one such window, so one
// query per wake tells a process's live streams which of them have
// something new, however long a row's transaction ran.
func EndedSince(ctx context.Context, q store.Querier, users []uuid.UUID, since *uint64) (Ended, error) {
	var from *string
	if since != nil {
		s := strconv.FormatUint(*since, 10)
		from = &s
	}
	var horizon string
	var out Ended
	err := q.QueryRow(ctx, EndedSQL, users, from).Scan(&horizon, &out.Users, &out.Waiting)
	if err != nil {
		return Ended{}, store.Translate(err)
	}
	out.Horizon, err = strconv.ParseUint(horizon, 10, 64)
	return out, err
}

// EndedSQL is EndedSince's query ($1 the users, $2 the previous horizon as
// text or NULL), for the load benchmark's EXPLAIN. One statement, one
// snapshot: the horizon it returns is the xmin it read below.
const EndedSQL = `WITH h AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
	SELECT h.xmin::text, ARRAY(SELECT DISTINCT n.user_id FROM notifications n
	    WHERE n.user_id = ANY ($1::uuid[]) AND $2::text IS NOT NULL
	      AND n.txid >= $2::text::xid8 AND n.txid < h.xmin),
	    EXISTS (SELECT 1 FROM notifications n WHERE n.user_id = ANY ($1::uuid[]) AND n.txid >= h.xmin) FROM h`
