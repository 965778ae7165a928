package importdb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/ticketdb"
)

// LinkEnds is a link's ends and type.
type LinkEnds struct {
	SourceID uuid.UUID `db:"source_id"`
	TargetID uuid.UUID `db:"target_id"`
	Type     string    `db:"type"`
}

// LinksBetween reads the links of any type from sources[i] to targets[i].
func LinksBetween(ctx context.Context, q store.Querier, sources, targets []uuid.UUID) ([]LinkEnds, error) {
	return store.SelectRaw[LinkEnds](ctx, q, `SELECT l.source_id, l.target_id, l.type
	    FROM (SELECT DISTINCT * FROM unnest($1::uuid[], $2::uuid[])) AS u(s, t)
	    JOIN ticket_links l ON l.source_id = u.s AND l.target_id = u.t`, sources, targets)
}

// BlocksFrom reads every blocks link reachable from the tickets from (the
// part of the blocks graph a cycle check starting there walks).
func BlocksFrom(ctx context.Context, q store.Querier, from []uuid.UUID) ([]LinkEnds, error) {
	return store.SelectRaw[LinkEnds](ctx, q, `WITH RECURSIVE r(id) AS (
	        SELECT DISTINCT * FROM unnest($1::uuid[])
	        UNION
	        SELECT l.target_id FROM ticket_links l JOIN r ON l.source_id = r.id WHERE l.type = 'blocks')
	    SELECT l.source_id, l.target_id, l.type FROM r JOIN ticket_links l ON l.source_id = r.id AND l.type = 'blocks'`, from)
}

// InsertLinks writes links in one statement.
func InsertLinks(ctx context.Context, q store.Querier, rs []ticketdb.LinkRow) error {
	if len(rs) == 0 {
		return nil
	}
	n := len(rs)
	ids, orgs, sources, targets := make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n), make([]uuid.UUID, n)
	types, by, at := make([]string, n), make([]*uuid.UUID, n), make([]time.Time, n)
	for i, r := range rs {
		ids[i], orgs[i], sources[i], targets[i], types[i], by[i], at[i] = r.ID, r.OrgID, r.SourceID, r.TargetID, r.Type, r.CreatedBy, r.CreatedAt
	}
	_, err := q.Exec(ctx, `INSERT INTO ticket_links (id, org_id, source_id, target_id, type, created_by, created_at)
	    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::uuid[], $7::timestamptz[])`,
		ids, orgs, sources, targets, types, by, at)
	return store.Translate(err)
}
