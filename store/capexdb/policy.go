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

// Override is a ticket_capitalization_overrides row.
type Override struct {
	TicketID       uuid.UUID  `db:"ticket_id"`
	OrgID          uuid.UUID  `db:"org_id"`
	Classification string     `db:"classification"`
	Reason         string     `db:"reason"`
	SetBy          *uuid.UUID `db:"set_by"`
	SetAt          time.Time  `db:"set_at"`
}

const overrideColumns = `ticket_id, org_id, classification, reason, set_by, set_at`

// TicketOrg is the org of a live ticket (ErrNotFound when none).
func TicketOrg(ctx context.Context, q store.Querier, ticketID uuid.UUID) (uuid.UUID, error) {
	rows, err := store.SelectRaw[struct {
		OrgID uuid.UUID `db:"org_id"`
	}](ctx, q, `SELECT org_id FROM tickets WHERE id = $1 AND deleted_at IS NULL`, ticketID)
	if err != nil {
		return uuid.Nil, err
	}
	if len(rows) == 0 {
		return uuid.Nil, store.ErrNotFound
	}
	return rows[0].OrgID, nil
}

// OverrideOf is ticketID's override, locked for the change (ErrNotFound
// when none).
func OverrideOf(ctx context.Context, q store.Querier, ticketID uuid.UUID) (Override, error) {
	rows, err := store.SelectRaw[Override](ctx, q, `SELECT `+overrideColumns+` FROM ticket_capitalization_overrides
		WHERE ticket_id = $1 FOR UPDATE`, ticketID)
	if err != nil {
		return Override{}, err
	}
	if len(rows) == 0 {
		return Override{}, store.ErrNotFound
	}
	return rows[0], nil
}

// PutOverride sets o as its ticket's override.
func PutOverride(ctx context.Context, q store.Querier, o Override) error {
	_, err := q.Exec(ctx, `INSERT INTO ticket_capitalization_overrides (`+overrideColumns+`) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (ticket_id) DO UPDATE SET classification = EXCLUDED.classification, reason = EXCLUDED.reason,
		set_by = EXCLUDED.set_by, set_at = EXCLUDED.set_at`, o.TicketID, o.OrgID, o.Classification, o.Reason, o.SetBy, o.SetAt)
	return store.Translate(err)
}

// DeleteOverride removes ticketID's override.
func DeleteOverride(ctx context.Context, q store.Querier, ticketID uuid.UUID) error {
	_, err := q.Exec(ctx, `DELETE FROM ticket_capitalization_overrides WHERE ticket_id = $1`, ticketID)
	return store.Translate(err)
}

// MonthOverrides are the overrides of orgID's tickets with approved time in
// [from, to).
func MonthOverrides(ctx context.Context, q store.Querier, orgID uuid.UUID, from, to time.Time) ([]Override, error) {
	return store.SelectRaw[Override](ctx, q, `SELECT `+overrideColumns+` FROM ticket_capitalization_overrides o
		WHERE o.org_id = $1 AND EXISTS (SELECT 1 FROM time_entries te WHERE te.ticket_id = o.ticket_id
			AND te.status = 'Approved' AND te.date >= $2 AND te.date < $3)`, orgID, from, to)
}
