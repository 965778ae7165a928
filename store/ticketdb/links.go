package ticketdb

import (
	"context"
	"strconv"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// LinkRow is a ticket_links row.
type LinkRow struct {
	ID        uuid.UUID  `db:"id"`
	OrgID     uuid.UUID  `db:"org_id"`
	SourceID  uuid.UUID  `db:"source_id"`
	TargetID  uuid.UUID  `db:"target_id"`
	Type      string     `db:"type"`
	CreatedBy *uuid.UUID `db:"created_by"`
	CreatedAt time.Time  `db:"created_at"`
}

// LinkedRow is a link of a ticket with the other ticket's summary and the
// caller's access to it.
type LinkedRow struct {
	LinkRow
	OtherID      uuid.UUID `db:"other_id"`
	OtherTitle   string    `db:"other_title"`
	OtherStatus  string    `db:"other_status"`
	OtherNumber  int32     `db:"other_number"`
	OtherProject uuid.UUID `db:"other_project_id"`
	ProjectKey   string    `db:"project_key"`
	store.AccessRow
}

// MaxLinks is the most links one ticket may have.
const MaxLinks = 500

// Links lists the links of ticket id whose other ticket is live, oldest
// first, with the caller's access to the other ticket.
func Links(ctx context.Context, q store.Querier, id, userID uuid.UUID) ([]LinkedRow, error) {
	return store.SelectRaw[LinkedRow](ctx, q, `
		SELECT l.id, l.org_id, l.source_id, l.target_id, l.type, l.created_by, l.created_at,
		       o.id AS other_id, o.title AS other_title, o.status AS other_status, o.ticket_number AS other_number,
		       o.project_id AS other_project_id, p.key AS project_key,
		       `+store.Cols(store.AccessColumns("o.org_id", "o.project_id", "$2"))+`
		FROM ticket_links l
		JOIN tickets o ON o.id = CASE WHEN l.source_id = $1 THEN l.target_id ELSE l.source_id END
		JOIN projects p ON p.id = o.project_id
		WHERE (l.source_id = $1 OR l.target_id = $1) AND o.deleted_at IS NULL AND p.deleted_at IS NULL
		ORDER BY l.id LIMIT `+strconv.Itoa(MaxLinks), id, userID)
}

// CountLinks counts the links of each of ids (either end).
func CountLinks(ctx context.Context, q store.Querier, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
	type row struct {
		ID uuid.UUID `db:"id"`
		N  int64     `db:"n"`
	}
	rows, err := store.SelectRaw[row](ctx, q, `
		SELECT x.id, count(*) AS n FROM unnest($1::uuid[]) x(id)
		JOIN ticket_links l ON l.source_id = x.id OR l.target_id = x.id GROUP BY x.id`, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int64, len(rows))
	for _, r := range rows {
		out[r.ID] = r.N
	}
	return out, nil
}

// GetLink reads a link of orgID by id.
func GetLink(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (LinkRow, error) {
	return store.Get[LinkRow](ctx, q, store.SQL.Select("id", "org_id", "source_id", "target_id", "type", "created_by", "created_at").
		From("ticket_links").Where(sq.Eq{"org_id": orgID, "id": id}))
}

// FindLink reads the link of type from source to target, if any.
func FindLink(ctx context.Context, q store.Querier, source, target uuid.UUID, typ string) (LinkRow, error) {
	return store.Get[LinkRow](ctx, q, store.SQL.Select("id", "org_id", "source_id", "target_id", "type", "created_by", "created_at").
		From("ticket_links").Where(sq.Eq{"source_id": source, "target_id": target, "type": typ}))
}

// LockOrgLinks serializes changes of an org's blocks graph for the rest of
// the transaction (the cycle check reads the graph it writes).
func LockOrgLinks(ctx context.Context, q store.Querier, orgID uuid.UUID) error {
	_, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('ticket_links:' || $1::text, 0))`, orgID)
	return store.Translate(err)
}

// Blocks reports whether from blocks to, directly or through other tickets.
func Blocks(ctx context.Context, q store.Querier, from, to uuid.UUID) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `
		WITH RECURSIVE r(id) AS (
			SELECT $1::uuid
			UNION
			SELECT l.target_id FROM ticket_links l JOIN r ON l.source_id = r.id WHERE l.type = 'blocks')
		SELECT EXISTS (SELECT 1 FROM r WHERE id = $2)`, from, to).Scan(&ok)
	return ok, store.Translate(err)
}

// InsertLink writes a link.
func InsertLink(ctx context.Context, q store.Querier, r LinkRow) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("ticket_links").
		Columns("id", "org_id", "source_id", "target_id", "type", "created_by", "created_at").
		Values(r.ID, r.OrgID, r.SourceID, r.TargetID, r.Type, r.CreatedBy, r.CreatedAt))
	return err
}

// DeleteLink removes a link.
func DeleteLink(ctx context.Context, q store.Querier, orgID, id uuid.UUID) error {
	n, err := store.Exec(ctx, q, store.SQL.Delete("ticket_links").Where(sq.Eq{"org_id": orgID, "id": id}))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// DeleteLinksOf removes every link of a ticket (either end).
func DeleteLinksOf(ctx context.Context, q store.Querier, orgID, id uuid.UUID) error {
	_, err := store.Exec(ctx, q, store.SQL.Delete("ticket_links").
		Where(sq.Eq{"org_id": orgID}).Where(sq.Or{sq.Eq{"source_id": id}, sq.Eq{"target_id": id}}))
	return err
}
