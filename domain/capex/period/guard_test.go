package period_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex/period"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/capexdb"
	"tracker/store/storetest"
)

func TestOfIsTheUTCMonth(t *testing.T) {
	t.Parallel()
	// 23:30 on 31 January in New York is already February in UTC.
	ny := time.FixedZone("EST", -5*3600)
	if got := period.Of(time.Date(2026, 1, 31, 23, 30, 0, 0, ny)); got != "2026-02" {
		t.Fatalf("Of(31 Jan 23:30 EST) = %q, want 2026-02", got)
	}
	if got := period.Of(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); got != "2026-12" {
		t.Fatalf("Of(1 Dec) = %q, want 2026-12", got)
	}
}

func TestClosedErrorNamesThePeriodAndTheClose(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 4, 2, 10, 15, 0, 0, time.FixedZone("CEST", 2*3600))
	err := period.ClosedError("2026-03", "time entry", at)
	var de *domain.Error
	if !errors.As(err, &de) || de.Kind != domain.KindConflict {
		t.Fatalf("ClosedError = %#v, want a domain conflict", err)
	}
	want := "period 2026-03 is closed: a time entry dated in it cannot be changed until an Owner reopens it"
	if de.Message != want {
		t.Fatalf("message = %q, want %q", de.Message, want)
	}
	if strings.Join(de.Details, "|") != "period: 2026-03|closed_at: 2026-04-02T08:15:00Z" {
		t.Fatalf("details = %q", de.Details)
	}
}

// closeMonth records a close in force of p in org; it returns the close's id.
func closeMonth(t *testing.T, db *store.DB, org uuid.UUID, p string, at time.Time) uuid.UUID {
	t.Helper()
	c := capexdb.NewClose(domain.NewID(), org, p, nil, at, capexdb.StatusClosed)
	c.SHA256 = strings.Repeat("0", 64)
	if err := capexdb.Insert(context.Background(), db.Q(), c, []byte("{}"), []byte("")); err != nil {
		t.Fatalf("close %s: %v", p, err)
	}
	return c.ID
}

func day(s string) time.Time { return testfactory.Day(s) }

func TestEnsureOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	owner := testfactory.User(t, db, testfactory.UserOpts{}).ID
	org := testfactory.Org(t, db, owner, testfactory.OrgOpts{}).ID
	other := testfactory.Org(t, db, owner, testfactory.OrgOpts{}).ID
	closedAt := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	closeMonth(t, db, org, "2026-03", closedAt)
	reopened := closeMonth(t, db, org, "2026-05", closedAt)
	if err := capexdb.Reopen(ctx, db.Q(), reopened, owner, "late entries", closedAt.AddDate(0, 2, 0)); err != nil {
		t.Fatal(err)
	}

	ensure := func(org uuid.UUID, days ...time.Time) error {
		return db.InTx(ctx, func(q store.Querier) error {
			return period.EnsureOpen(ctx, q, org, "labor rate", days...)
		})
	}
	for _, tc := range []struct {
		name   string
		org    uuid.UUID
		days   []time.Time
		closed string // "" when the write may go on
	}{
		{"no days", org, nil, ""},
		{"an open month", org, []time.Time{day("2026-02-10")}, ""},
		{"a reopened month", org, []time.Time{day("2026-05-31")}, ""},
		{"the closed month", org, []time.Time{day("2026-03-01")}, "2026-03"},
		{"the closed month after open ones, one of them twice", org,
			[]time.Time{day("2026-02-01"), day("2026-02-28"), day("2026-04-30"), day("2026-03-31")}, "2026-03"},
		{"the closed month twice", org, []time.Time{day("2026-03-02"), day("2026-03-03")}, "2026-03"},
		{"another org's closed month", other, []time.Time{day("2026-03-01")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ensure(tc.org, tc.days...)
			if tc.closed == "" {
				if err != nil {
					t.Fatalf("EnsureOpen = %v, want nil", err)
				}
				return
			}
			want := period.ClosedError(tc.closed, "labor rate", closedAt)
			if err == nil || err.Error() != want.Error() {
				t.Fatalf("EnsureOpen = %v, want %v", err, want)
			}
		})
	}

	t.Run("a failed query is returned, not taken for an open month", func(t *testing.T) {
		err := db.InTx(ctx, func(q store.Querier) error {
			if _, err := q.Exec(ctx, "SELECT 1/0"); err == nil {
				t.Fatal("SELECT 1/0 succeeded")
			}
			return period.EnsureOpen(ctx, q, org, "labor rate", day("2026-02-01"))
		})
		var de *domain.Error
		if err == nil || (errors.As(err, &de) && de.Kind == domain.KindConflict) {
			t.Fatalf("EnsureOpen in an aborted transaction = %v, want the database's error", err)
		}
	})
}
