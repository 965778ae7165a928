package importdb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Key map kinds.
const (
	KindUser     = "user"
	KindWorkflow = "workflow"
	KindLabel    = "label"
	KindProject  = "project"
	KindSprint   = "sprint"
	KindTicket   = "ticket"
)

// Key is one source key and the row it maps to in the target org.
type Key struct {
	Kind    string
	Key     string
	ID      uuid.UUID
	Created bool // false: an existing row was matched
}

// PutKeys records keys of one import. Catalog keys (users, workflows,
// labels, projects, sprints) are re-pointed when matched again, since the
// row they name may have been replaced; a ticket key, once written, stays.
func PutKeys(ctx context.Context, q store.Querier, orgID uuid.UUID, source string, importID uuid.UUID, keys []Key) error {
	if len(keys) == 0 {
		return nil
	}
	kinds, names, ids, created := make([]string, len(keys)), make([]string, len(keys)), make([]uuid.UUID, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		kinds[i], names[i], ids[i], created[i] = k.Kind, k.Key, k.ID, k.Created
	}
	_, err := q.Exec(ctx, `INSERT INTO import_key_map (org_id, source, kind, source_key, target_id, import_id, created, created_at)
	    SELECT $1, $2, u.kind, u.key, u.id, $3, u.created, $8
	    FROM unnest($4::text[], $5::text[], $6::uuid[], $7::bool[]) AS u(kind, key, id, created)
	    ON CONFLICT (org_id, source, kind, source_key) DO UPDATE SET target_id = EXCLUDED.target_id
	    WHERE import_key_map.kind <> 'ticket'`,
		orgID, source, importID, kinds, names, ids, created, time.Now().UTC())
	return store.Translate(err)
}

// Keys reads the keys of one kind recorded for a source in an org; keys
// narrows the read (nil: all of the kind).
func Keys(ctx context.Context, q store.Querier, orgID uuid.UUID, source, kind string, keys []string) (map[string]uuid.UUID, error) {
	sql := `SELECT source_key, target_id FROM import_key_map WHERE org_id = $1 AND source = $2 AND kind = $3`
	args := []any{orgID, source, kind}
	if keys != nil {
		// One index probe per key, whatever the planner believes of a key
		// map that a running import fills faster than autovacuum analyzes.
		sql = `SELECT k.source_key, k.target_id FROM unnest($4::text[]) AS u(key), LATERAL (
		    SELECT source_key, target_id FROM import_key_map
		    WHERE org_id = $1 AND source = $2 AND kind = $3 AND source_key = u.key LIMIT 1) AS k`
		args = append(args, keys)
	}
	return pairs(ctx, q, sql, args...)
}

// Audit is the bulk form of domain.Record's audit row for created rows.
type Audit struct {
	EntityType string
	IDs        []uuid.UUID
}

// InsertAudits writes one audit row per id with the given action.
func InsertAudits(ctx context.Context, q store.Querier, orgID uuid.UUID, actor *uuid.UUID, action string, at time.Time, a Audit, newID func() uuid.UUID) error {
	if len(a.IDs) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(a.IDs))
	for i := range ids {
		ids[i] = newID()
	}
	_, err := q.Exec(ctx, `INSERT INTO audit_log (id, org_id, actor_id, entity_type, entity_id, action, changes, created_at)
	    SELECT u.id, $1, $2, $3, u.entity, $4, '[]', $5 FROM unnest($6::uuid[], $7::uuid[]) AS u(id, entity)`,
		orgID, actor, a.EntityType, action, at, ids, a.IDs)
	return store.Translate(err)
}

// Resolution is the status a created ticket reached in the tracker it was
// imported from, and when.
type Resolution struct {
	Ticket uuid.UUID
	Status string
	At     time.Time
}

// InsertResolutions writes each as the ticket's audit row of a status
// change (action status_changed, changes [{field: status, old: null, new:
// Status}]) at its time: what burndowns and velocity read.
func InsertResolutions(ctx context.Context, q store.Querier, orgID uuid.UUID, actor *uuid.UUID, rs []Resolution, newID func() uuid.UUID) error {
	if len(rs) == 0 {
		return nil
	}
	ids, tickets, statuses, ats := make([]uuid.UUID, len(rs)), make([]uuid.UUID, len(rs)), make([]string, len(rs)), make([]time.Time, len(rs))
	for i, r := range rs {
		ids[i], tickets[i], statuses[i], ats[i] = newID(), r.Ticket, r.Status, r.At
	}
	_, err := q.Exec(ctx, `INSERT INTO audit_log (id, org_id, actor_id, entity_type, entity_id, action, changes, created_at)
	    SELECT u.id, $1, $2, 'ticket', u.entity, 'status_changed',
	        jsonb_build_array(jsonb_build_object('field', 'status', 'old', NULL, 'new', u.status)), u.at
	    FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[]) AS u(id, entity, status, at)`,
		orgID, actor, ids, tickets, statuses, ats)
	return store.Translate(err)
}
