// Package period guards closed accounting periods: once an org closes a
// month, nothing dated in it may change (time entries created, edited,
// submitted, approved or deleted; labor rates effective in it added) until
// an Owner reopens it. The close itself, its snapshot and the reopen live in
// domain/capex, which owns the report the snapshot freezes.
package period

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// Layout renders a period: YYYY-MM.
const Layout = "2006-01"

// Of is the period (YYYY-MM) of a date, in UTC.
func Of(day time.Time) string { return day.UTC().Format(Layout) }

// EnsureOpen takes the shared lock of each day's month in org (so a close
// waits for the write, and the write sees a close that committed first) and
// returns a 409 naming the first closed month; what says what was refused
// ("time entry", "labor rate"). Call it inside the write's transaction.
func EnsureOpen(ctx context.Context, q store.Querier, orgID uuid.UUID, what string, days ...time.Time) error {
	seen := map[string]bool{}
	for _, d := range days {
		p := Of(d)
		if seen[p] {
			continue
		}
		seen[p] = true
		if err := capexdb.Lock(ctx, q, orgID, p, false); err != nil {
			return err
		}
		c, err := capexdb.InForce(ctx, q, orgID, p)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if c.Status == capexdb.StatusPending {
			return PendingError(p, what)
		}
		return ClosedError(p, what, c.ClosedAt)
	}
	return nil
}

// PendingError is the 409 of a write into a month whose close waits for a
// second approver: the month is frozen as its snapshot, so what is approved
// is what was seen.
func PendingError(p, what string) error {
	return domain.Conflict("period "+p+" has a close pending approval: a "+what+" dated in it cannot be changed until the close is approved or rejected",
		"period: "+p, "status: "+capexdb.StatusPending)
}

// ClosedError is the 409 of a write into a closed period.
func ClosedError(p, what string, closedAt time.Time) error {
	return domain.Conflict("period "+p+" is closed: a "+what+" dated in it cannot be changed until an Owner reopens it",
		"period: "+p, "closed_at: "+closedAt.UTC().Format(time.RFC3339))
}
