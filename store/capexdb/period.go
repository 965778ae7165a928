// The SQL of period closes: the close rows, the lock that orders a close
// against writes into its month, and the org's opt-in to the automatic close.

package capexdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Close is a period_closes row without its snapshot and CSV.
type Close struct {
	ID           uuid.UUID  `db:"id"`
	OrgID        uuid.UUID  `db:"org_id"`
	Period       string     `db:"period"`
	ClosedBy     *uuid.UUID `db:"closed_by"`
	ClosedAt     time.Time  `db:"closed_at"`
	SHA256       string     `db:"sha256"`
	Entries      int64      `db:"entries"`
	ReopenedBy   *uuid.UUID `db:"reopened_by"`
	ReopenedAt   *time.Time `db:"reopened_at"`
	ReopenReason *string    `db:"reopen_reason"`
	// Status is pending_approval, closed or rejected (a rejected close is
	// lifted like a reopened one: ReopenedBy/At/Reason say who rejected it,
	// when and why).
	Status     string     `db:"status"`
	ApprovedBy *uuid.UUID `db:"approved_by"`
	ApprovedAt *time.Time `db:"approved_at"`
}

// Close statuses.
const (
	StatusPending  = "pending_approval"
	StatusClosed   = "closed"
	StatusRejected = "rejected"
)

// Columns is the column list of Close.
func Columns() []string {
	return []string{"id", "org_id", "period", "closed_by", "closed_at", "sha256", "entries",
		"reopened_by", "reopened_at", "reopen_reason", "status", "approved_by", "approved_at"}
}

// Lock takes the transaction-scoped advisory lock of (org, period): shared by
// every write into the month, exclusive by close and reopen, so a write that
// checked the month open commits before a close reads the month.
func Lock(ctx context.Context, q store.Querier, orgID uuid.UUID, period string, exclusive bool) error {
	fn := "pg_advisory_xact_lock_shared"
	if exclusive {
		fn = "pg_advisory_xact_lock"
	}
	_, err := q.Exec(ctx, `SELECT `+fn+`(hashtextextended('period:' || $1::text || ':' || $2::text, 0))`, orgID, period)
	return store.Translate(err)
}

// InForce is the close of (org, period) that is in force; store.ErrNotFound
// when the month is open.
func InForce(ctx context.Context, q store.Querier, orgID uuid.UUID, period string) (Close, error) {
	return store.Get[Close](ctx, q, store.SQL.Select(Columns()...).From("period_closes").
		Where(sq.Eq{"org_id": orgID, "period": period, "reopened_at": nil}))
}

// InForceAmong lists the closes in force of org among the given months,
// by period: a read before the write's transaction (an import's check on
// submission), which the write confirms under Lock.
func InForceAmong(ctx context.Context, q store.Querier, orgID uuid.UUID, periods []string) ([]Close, error) {
	return store.Select[Close](ctx, q, store.SQL.Select(Columns()...).From("period_closes").
		Where(sq.Eq{"org_id": orgID, "period": periods, "reopened_at": nil}).OrderBy("period"))
}

// NewClose is a close of orgID's period taken at at by by (nil: the
// Schedule), with its status: StatusClosed (in force at once) or
// StatusPending (waiting for a second approver).
func NewClose(id, orgID uuid.UUID, period string, by *uuid.UUID, at time.Time, status string) Close {
	return Close{ID: id, OrgID: orgID, Period: period, ClosedBy: by, ClosedAt: at, Status: status}
}

// Insert records a close (NewClose) with its snapshot document and CSV.
func Insert(ctx context.Context, q store.Querier, c Close, snapshot, csv []byte) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("period_closes").
		Columns("id", "org_id", "period", "closed_by", "closed_at", "snapshot", "csv", "sha256", "entries", "status").
		Values(c.ID, c.OrgID, c.Period, c.ClosedBy, c.ClosedAt, snapshot, csv, c.SHA256, c.Entries, c.Status))
	return err
}

// Files reads the snapshot document and the CSV of a close.
func Files(ctx context.Context, q store.Querier, id uuid.UUID) (snapshot, csv []byte, err error) {
	type row struct {
		Snapshot []byte `db:"snapshot"`
		CSV      []byte `db:"csv"`
	}
	r, err := store.Get[row](ctx, q, store.SQL.Select("snapshot", "csv").From("period_closes").Where(sq.Eq{"id": id}))
	return r.Snapshot, r.CSV, err
}

// Reopen lifts a close in force and drops its priced entries (the close row
// keeps its CSV and checksum).
func Reopen(ctx context.Context, q store.Querier, id, by uuid.UUID, reason string, at time.Time) error {
	return lift(ctx, q, id, by, reason, at, StatusClosed)
}

// Reject lifts a pending close as rejected and drops its priced entries.
func Reject(ctx context.Context, q store.Querier, id, by uuid.UUID, reason string, at time.Time) error {
	return lift(ctx, q, id, by, reason, at, StatusRejected)
}

func lift(ctx context.Context, q store.Querier, id, by uuid.UUID, reason string, at time.Time, status string) error {
	if _, err := store.Exec(ctx, q, store.SQL.Update("period_closes").Set("reopened_by", by).Set("reopened_at", at).
		Set("reopen_reason", reason).Set("status", status).Where(sq.Eq{"id": id, "reopened_at": nil})); err != nil {
		return err
	}
	_, err := store.Exec(ctx, q, store.SQL.Delete("period_close_entries").Where(sq.Eq{"close_id": id}))
	return err
}

// Approve turns a pending close into a close and records the approver in
// the close and its snapshot document.
func Approve(ctx context.Context, q store.Querier, id, by uuid.UUID, at time.Time, snapshot []byte) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("period_closes").Set("status", StatusClosed).Set("approved_by", by).
		Set("approved_at", at).Set("snapshot", snapshot).Where(sq.Eq{"id": id, "status": StatusPending, "reopened_at": nil}))
	return err
}

// Between lists the closes of org (in force and reopened) of the months
// [from, to], by period and time of close.
func Between(ctx context.Context, q store.Querier, orgID uuid.UUID, from, to string) ([]Close, error) {
	return store.Select[Close](ctx, q, store.SQL.Select(Columns()...).From("period_closes").
		Where(sq.Eq{"org_id": orgID}).Where(sq.GtOrEq{"period": from}).Where(sq.LtOrEq{"period": to}).
		OrderBy("period", "closed_at", "id"))
}

// AutoClose reads whether the org lets the monthly Schedule close the
// previous month.
func AutoClose(ctx context.Context, q store.Querier, orgID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select("auto_close_periods").From("organizations").Where(sq.Eq{"id": orgID}))
}

// RequireSecondApprover reads whether a close by one person waits for a
// second one's approval.
func RequireSecondApprover(ctx context.Context, q store.Querier, orgID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select("require_second_close_approver").From("organizations").Where(sq.Eq{"id": orgID}))
}

// SetRequireSecondApprover records the org's choice.
func SetRequireSecondApprover(ctx context.Context, q store.Querier, orgID uuid.UUID, on bool) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("organizations").Set("require_second_close_approver", on).Where(sq.Eq{"id": orgID}))
	return err
}

// SetAutoClose records the org's choice.
func SetAutoClose(ctx context.Context, q store.Querier, orgID uuid.UUID, on bool) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("organizations").Set("auto_close_periods", on).Where(sq.Eq{"id": orgID}))
	return err
}
