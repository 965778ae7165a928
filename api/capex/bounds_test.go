package capex_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/api/apitest"
	"tracker/domain"
	"tracker/domain/capex"
	"tracker/store"
	"tracker/store/storetest"
)

// tags is a filter of n key:value pairs, env:prod first (a tag of the
// world's projects).
func tags(n int) string {
	pairs := []string{"env:prod"}
	for i := 1; i < n; i++ {
		pairs = append(pairs, fmt.Sprintf("k%d:v%d", i, i))
	}
	return strings.Join(pairs[:n], ",")
}

// A tag filter takes at most capex.MaxTags pairs on every report route:
// one more is a 422 naming the cap, before any report runs; at the cap the
// route answers.
func TestReportTagFilterIsCapped(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID.String()
	want := fmt.Sprintf("tag: at most %d key:value pairs (got %d)", capex.MaxTags, capex.MaxTags+1)
	for _, route := range []string{
		"/api/v1/reports/capitalization?period=2026-03",
		"/api/v1/reports/capitalization/export?period=2026-03",
		"/api/v1/reports/capitalization/export?format=xlsx&period=2026-03",
		"/api/v1/reports/capitalization/entries?period=2026-03",
		"/api/v1/reports/capitalization/entries?format=csv&period=2026-03",
		"/api/v1/reports/capitalization/trend.svg?from=2026-01&to=2026-03",
	} {
		over := route + "&" + q("org_id", org, "tag", tags(capex.MaxTags+1))
		r := w.env.Do("GET", over, w.admin.Token, nil).Expect(t, 422)
		if e := r.Error(); e.Code != "VALIDATION_ERROR" || !slices.Contains(e.Details, want) {
			t.Errorf("%s: %s", route, r.Body)
		}
		w.env.Do("GET", route+"&"+q("org_id", org, "tag", tags(capex.MaxTags)), w.admin.Token, nil).Expect(t, 200)
	}
}

// A trend is at most capex.MaxTrendWork months × tag pairs: 36 months take
// 6 pairs and 12 months 20, one pair or one month more is a 422 that names
// the pairs the span allows.
func TestTrendWorkIsBounded(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID.String()
	path := "/api/v1/reports/capitalization/trend.svg?"
	for _, c := range []struct {
		from, to string
		pairs    int
		want     string // "" is 200
	}{
		{"2024-04", "2027-03", 6, ""},
		{"2024-04", "2027-03", 7, "tag: a trend of 36 months takes at most 6 key:value pairs (months × pairs at most 240), got 7"},
		{"2026-01", "2026-12", 20, ""},
		{"2025-12", "2026-12", 20, "tag: a trend of 13 months takes at most 18 key:value pairs (months × pairs at most 240), got 20"},
	} {
		r := w.env.Do("GET", path+q("org_id", org, "from", c.from, "to", c.to, "tag", tags(c.pairs)), w.admin.Token, nil)
		if c.want == "" {
			r.Expect(t, 200)
			continue
		}
		r.Expect(t, 422)
		if e := r.Error(); e.Code != "VALIDATION_ERROR" || !slices.Equal(e.Details, []string{c.want}) {
			t.Errorf("%s..%s with %d pairs: %s", c.from, c.to, c.pairs, r.Body)
		}
	}
}

// A request whose statement runs past the API pool's statement timeout
// answers 503 SERVICE_UNAVAILABLE with Retry-After and the error envelope,
// and the backend is free again: the report's read of the rollup waits
// behind a lock another transaction holds, the server cancels it at the
// timeout, and once the lock is gone the same request answers 200.
func TestStatementTimeoutAnswers503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := storetest.NewWithURL(t)
	db, err := store.Open(ctx, url, store.WithStatementTimeout(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	w := setupWith(t, apitest.Options{DB: db, DBURL: url})
	report := "/api/v1/reports/capitalization?" + q("period", "2026-03", "org_id", w.owner.OrgID.String())

	locker, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	release := func() { _ = locker.Close(context.Background()) }
	t.Cleanup(release)
	// Without a statement timeout the request would wait for the lock:
	// it is let go eventually, so such a failure ends (with a 200).
	stop := time.AfterFunc(2*time.Minute, release)
	defer stop.Stop()
	if _, err := locker.Exec(ctx, `BEGIN; LOCK TABLE capex_rollup IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	r := w.env.Do("GET", report, w.admin.Token, nil).Expect(t, 503)
	if e := r.Error(); e.Code != "SERVICE_UNAVAILABLE" || e.Message != domain.StatementTimeoutMessage || e.Details == nil {
		t.Fatalf("503 body %s", r.Body)
	}
	if got := r.Header.Get("Retry-After"); got != strconv.Itoa(domain.StatementTimeoutRetryAfter) {
		t.Fatalf("Retry-After %q", got)
	}
	release()
	var rep capex.Report
	w.env.Do("GET", report, w.admin.Token, nil).Expect(t, 200).Decode(t, &rep)
	if rep.TotalAmountCents == 0 {
		t.Fatalf("after the lock: %+v", rep)
	}
}
