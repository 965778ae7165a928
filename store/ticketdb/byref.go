package ticketdb

import (
	"context"

	"github.com/google/uuid"

	"tracker/store"
)

// OrgsWithKey lists the orgs with a live project keyed key (any case),
// limited to within when it is non-empty. Integrations that know a key but
// not an org (the code-host webhook) resolve it with this.
func OrgsWithKey(ctx context.Context, q store.Querier, key string, within []uuid.UUID) ([]uuid.UUID, error) {
	if within == nil {
		within = []uuid.UUID{}
	}
	rows, err := store.SelectRaw[orgOnly](ctx, q, `SELECT DISTINCT p.org_id FROM projects p
		WHERE upper(p.key) = upper($1) AND p.deleted_at IS NULL
		  AND (cardinality($2::uuid[]) = 0 OR p.org_id = ANY($2))
		ORDER BY p.org_id`, key, within)
	out := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		out[i] = r.OrgID
	}
	return out, err
}

type orgOnly struct {
	OrgID uuid.UUID `db:"org_id"`
}

// ForChangeByKey reads a visible ticket by project key and number in orgID
// for an integration's change, row-locked, with no caller (the access row
// is a non-member's: integrations do not use it).
func ForChangeByKey(ctx context.Context, q store.Querier, orgID uuid.UUID, key string, number int64) (ForChange, error) {
	sql := forChangeSQL("p.org_id = $1 AND upper(p.key) = upper($3) AND t.ticket_number = $4", true)
	return store.GetRaw[ForChange](ctx, q, sql, orgID, uuid.Nil, key, number)
}

// ForChangeByID is ForChangeByKey by ticket id (within orgID).
func ForChangeByID(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (ForChange, error) {
	sql := forChangeSQL("t.org_id = $3 AND t.id = $1", true)
	return store.GetRaw[ForChange](ctx, q, sql, id, uuid.Nil, orgID)
}

// IDByRef finds a live ticket of a live project of orgID by number: in the
// project keyed key (any case), or in projectID when key is "".
func IDByRef(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, key string, number int64) (uuid.UUID, error) {
	var id uuid.UUID
	err := q.QueryRow(ctx, `SELECT t.id FROM tickets t JOIN projects p ON p.id = t.project_id
		WHERE p.org_id = $1 AND CASE WHEN $3 = '' THEN p.id = $2 ELSE upper(p.key) = upper($3) END
		  AND t.ticket_number = $4 AND t.deleted_at IS NULL AND p.deleted_at IS NULL
		LIMIT 1`, orgID, projectID, key, number).Scan(&id)
	return id, store.Translate(err)
}
