// The SQL of capitalization policies: dated, versioned, never changed.

package capexdb

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Policy is a capitalization_policies row. Rules is the stored JSON array.
type Policy struct {
	ID                    uuid.UUID       `db:"id"`
	OrgID                 uuid.UUID       `db:"org_id"`
	Version               int64           `db:"version"`
	Framework             string          `db:"framework"`
	EffectiveFrom         time.Time       `db:"effective_from"`
	StandardHoursPerMonth int64           `db:"standard_hours_per_month"`
	Rules                 json.RawMessage `db:"rules"`
	Note                  *string         `db:"note"`
	CreatedBy             *uuid.UUID      `db:"created_by"`
	CreatedAt             time.Time       `db:"created_at"`
}

const policyColumns = `id, org_id, version, framework, effective_from, standard_hours_per_month, rules, note,
	created_by, created_at`

// LockPolicies takes the transaction-scoped lock of an org's policies, so
// that two creations number their versions one after the other.
func LockPolicies(ctx context.Context, q store.Querier, orgID uuid.UUID) error {
	_, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('capitalization_policies:' || $1::text, 0))`, orgID)
	return store.Translate(err)
}

// InsertPolicy stores p with the org's next version, which it returns.
func InsertPolicy(ctx context.Context, q store.Querier, p Policy) (int64, error) {
	type row struct {
		Version int64 `db:"version"`
	}
	r, err := store.GetRaw[row](ctx, q, `INSERT INTO capitalization_policies (`+policyColumns+`)
		SELECT $1, $2, COALESCE((SELECT max(version) FROM capitalization_policies WHERE org_id = $2), 0) + 1,
		       $3, $4, $5, $6, $7, $8, $9
		RETURNING version`, p.ID, p.OrgID, p.Framework, p.EffectiveFrom, p.StandardHoursPerMonth, p.Rules, p.Note,
		p.CreatedBy, p.CreatedAt)
	return r.Version, err
}

// Policies lists an org's policies, newest version first.
func Policies(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]Policy, error) {
	return store.SelectRaw[Policy](ctx, q, `SELECT `+policyColumns+` FROM capitalization_policies
		WHERE org_id = $1 ORDER BY version DESC`, orgID)
}

// PolicyByID reads one policy of an org; store.ErrNotFound when it has none
// of that id.
func PolicyByID(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (Policy, error) {
	return store.GetRaw[Policy](ctx, q, `SELECT `+policyColumns+` FROM capitalization_policies
		WHERE org_id = $1 AND id = $2`, orgID, id)
}

// PolicyInForce is the org's policy in force in the month that starts at
// month: the latest effective_from not after it, the highest version among
// equals; store.ErrNotFound when none is.
func PolicyInForce(ctx context.Context, q store.Querier, orgID uuid.UUID, month time.Time) (Policy, error) {
	return store.GetRaw[Policy](ctx, q, `SELECT `+policyColumns+` FROM capitalization_policies
		WHERE org_id = $1 AND effective_from <= $2 ORDER BY effective_from DESC, version DESC LIMIT 1`, orgID, month)
}
