package capex_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store/storetest"
)

// TestPeriodsCloseReopen walks one org's months through the period list,
// a close, the trend, a reopen, the Schedule's auto-close, the exports and
// the amortization schedule, with the rules each step enforces.
func TestPeriodsCloseReopen(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment)})
	if _, err := db.Pool.Exec(context.Background(), `UPDATE projects SET amortization_months = 3 WHERE id = $1`, o.ticket.ProjectID); err != nil {
		t.Fatal(err)
	}
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	o.entry(o.ann, "2026-03-02", 60, "Coding", "")
	o.entry(o.ann, "2026-03-03", 30, "Coding", "Draft")
	now := time.Date(2026, 4, 15, 12, 0, 0, 0, time.UTC)
	svc := capex.New(db, domain.ClockFunc(func() time.Time { return now }))
	ctx := context.Background()
	member := domain.Principal{UserID: o.ann, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	admin := domain.Principal{UserID: testfactory.User(t, db, testfactory.UserOpts{}).ID, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	testfactory.Member(t, db, o.id, admin.UserID, testfactory.MemberOpts{Role: "admin"})

	states := func(from, to string) []string {
		t.Helper()
		ps, err := svc.ListPeriods(ctx, o.caller, o.id, from, to)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, p := range ps.Periods {
			out = append(out, p.Period+" "+p.Status)
		}
		return out
	}

	// The list defaults to the twelve months ending with the current one.
	ps, err := svc.ListPeriods(ctx, o.caller, o.id, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps.Periods) != 12 || ps.Periods[0].Period != "2025-05" || ps.Periods[11].Period != "2026-04" || ps.AutoClose || ps.OrgID != o.id {
		t.Fatalf("default list %+v", ps)
	}
	for _, p := range ps.Periods {
		if p.Status != capex.PeriodOpen || p.Close != nil || p.History == nil || len(p.History) != 0 {
			t.Fatalf("month %+v, want Open with no close", p)
		}
	}
	if got := states("2026-04", "2026-04"); len(got) != 1 {
		t.Fatalf("one month: %v", got)
	}
	if got := states("2016-05", "2026-04"); len(got) != capex.MaxPeriodSpan || got[0] != "2016-05 Open" {
		t.Fatalf("120 months: %d, from %v", len(got), got[:1])
	}
	list := func(p domain.Principal, from, to string) error {
		return testfactory.Err(svc.ListPeriods(ctx, p, o.id, from, to))
	}
	testfactory.WantKind(t, list(o.caller, "2016-04", "2026-04"), domain.KindValidation, "at most 120 months")
	testfactory.WantKind(t, list(o.caller, "2026-05", "2026-04"), domain.KindValidation, "to: must not be before from")
	testfactory.WantKind(t, list(o.caller, "May", ""), domain.KindValidation, "from: must be a month in the form YYYY-MM")
	testfactory.WantKind(t, list(o.caller, "", "2026-13"), domain.KindValidation, "to: must be a month in the form YYYY-MM")
	testfactory.WantKind(t, list(member, "", ""), domain.KindForbidden)

	// Close: only a month that has ended, by an Admin, once.
	closeP := func(p domain.Principal, period string) error { return testfactory.Err(svc.Close(ctx, p, o.id, period)) }
	testfactory.WantKind(t, closeP(o.caller, "2026-04"), domain.KindValidation, "only a month that has ended")
	testfactory.WantKind(t, closeP(o.caller, "March"), domain.KindValidation, "period")
	testfactory.WantKind(t, closeP(member, "2026-03"), domain.KindForbidden)
	c, err := svc.Close(ctx, admin, o.id, "2026-03")
	if err != nil {
		t.Fatal(err)
	}
	if c.Period != "2026-03" || c.Entries != 1 || c.ClosedBy == nil || *c.ClosedBy != admin.UserID || !c.ClosedAt.Equal(now) ||
		len(c.SHA256) != 64 || c.ReopenedAt != nil {
		t.Fatalf("close %+v", c)
	}
	testfactory.WantKind(t, closeP(o.caller, "2026-03"), domain.KindConflict, "already closed")
	// A closed month's CSV is the stored file when nothing narrows it, and
	// rendered from the snapshot when a filter does.
	csvOf := func(r capex.RawQuery) string {
		t.Helper()
		r.Period = "2026-03"
		qr, err := capex.ParseQuery(r)
		if err != nil {
			t.Fatal(err)
		}
		out, err := svc.ExportCSV(ctx, o.caller, qr)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if whole := csvOf(capex.RawQuery{}); strings.Count(whole, "\r\n") != 2 {
		t.Fatalf("March's CSV %q, want the header and Ann's row", whole)
	}
	for name, r := range map[string]capex.RawQuery{
		"user": {UserID: o.owner}, "team": {TeamID: domain.NewID()}, "cost center": {CostCenterID: "CC-none"},
		"activity": {ActivityType: "Testing"}, "tag": {Tag: "k:v"},
	} {
		if got := csvOf(r); strings.Count(got, "\r\n") != 1 {
			t.Fatalf("March's CSV filtered by %s = %q, want the header only", name, got)
		}
	}
	if got := strings.Join(states("2026-02", "2026-04"), ", "); got != "2026-02 Open, 2026-03 Closed, 2026-04 Open" {
		t.Fatalf("states %s", got)
	}
	ps, _ = svc.ListPeriods(ctx, o.caller, o.id, "2026-03", "2026-03")
	if cl := ps.Periods[0].Close; cl == nil || cl.ID != c.ID || cl.SHA256 != c.SHA256 {
		t.Fatalf("March's close %+v, want %+v", cl, c)
	}

	// A per-user report of the closed month: Ann's hour on the project.
	byUser, err := capex.ParseQuery(capex.RawQuery{Period: "2026-03", GroupBy: capex.GroupUser})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := svc.Report(ctx, o.caller, byUser)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Users == nil || len(*rep.Users) != 1 || (*rep.Users)[0].UserID != o.ann || (*rep.Users)[0].TotalAmountCents != 6000 ||
		len((*rep.Users)[0].Projects) != 1 || (*rep.Users)[0].Projects[0].ProjectID != o.ticket.ProjectID {
		t.Fatalf("per-user report %+v", rep.Users)
	}

	// The trend: each month is its report; March is closed.
	qr, err := capex.ParseTrendQuery(capex.RawQuery{})
	if err != nil {
		t.Fatal(err)
	}
	trend, err := svc.Trend(ctx, o.caller, qr, "2026-02", "2026-04")
	if err != nil {
		t.Fatal(err)
	}
	want := []capex.TrendMonth{{Period: "2026-02"}, {Period: "2026-03", CapExAmountCents: 6000, Closed: true}, {Period: "2026-04"}}
	if len(trend) != len(want) {
		t.Fatalf("trend %+v", trend)
	}
	for i := range want {
		if trend[i] != want[i] {
			t.Fatalf("trend month %d = %+v, want %+v", i, trend[i], want[i])
		}
	}
	if trend, err := svc.Trend(ctx, o.caller, qr, "", ""); err != nil || len(trend) != 12 || trend[0].Period != "2025-05" || trend[11].Period != "2026-04" {
		t.Fatalf("default trend %+v, %v", trend, err)
	}
	if trend, err := svc.Trend(ctx, o.caller, qr, "", "2026-03"); err != nil || len(trend) != 12 || trend[0].Period != "2025-04" {
		t.Fatalf("trend to March %+v, %v", trend, err)
	}
	if trend, err := svc.Trend(ctx, o.caller, qr, "2023-05", "2026-04"); err != nil || len(trend) != capex.MaxTrendSpan {
		t.Fatalf("36-month trend: %d months, %v", len(trend), err)
	}
	trendErr := func(qr capex.Query, from, to string) error {
		return testfactory.Err(svc.Trend(ctx, o.caller, qr, from, to))
	}
	testfactory.WantKind(t, trendErr(qr, "2023-04", "2026-04"), domain.KindValidation, "to: at most 36 months after from")
	testfactory.WantKind(t, trendErr(qr, "2026-05", "2026-04"), domain.KindValidation, "to: must not be before from")
	testfactory.WantKind(t, trendErr(qr, "x", "y"), domain.KindValidation, "from: must be a month in the form YYYY-MM",
		"to: must be a month in the form YYYY-MM")
	tags := func(n int) capex.Query {
		pairs := make([]string, n)
		for i := range pairs {
			pairs[i] = "k:" + string(rune('a'+i))
		}
		q, err := capex.ParseTrendQuery(capex.RawQuery{Tag: strings.Join(pairs, ",")})
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	if _, err := svc.Trend(ctx, o.caller, tags(20), "2025-05", "2026-04"); err != nil {
		t.Fatalf("12 months × 20 pairs: %v", err)
	}
	testfactory.WantKind(t, trendErr(tags(20), "2025-04", "2026-04"), domain.KindValidation,
		"a trend of 13 months takes at most 18 key:value pairs (months × pairs at most 240), got 20")

	// Amortization counts a closed month's amount as its snapshot froze it:
	// CapEx as the project was classified at the close, even after the
	// project moved to a phase that is expensed.
	setPhase := func(phase string) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, `UPDATE projects SET development_phase = $2 WHERE id = $1`, o.ticket.ProjectID, phase); err != nil {
			t.Fatal(err)
		}
	}
	setPhase(capex.PhasePreliminary)
	closedAm, err := svc.Amortization(ctx, o.caller, capex.AmortRequest{From: "2026-02", To: "2026-04"})
	if err != nil {
		t.Fatal(err)
	}
	if len(closedAm.Months) != 3 || closedAm.Totals.CapitalizedCents != 6000 || closedAm.Months[1].CapitalizedCents != 6000 {
		t.Fatalf("amortization over closed March %+v", closedAm)
	}
	setPhase(capex.PhaseApplicationDevelopment)

	// Reopen: the Owner only, with a reason of at most 2000 characters.
	reopen := func(p domain.Principal, reason string) error {
		return testfactory.Err(svc.Reopen(ctx, p, o.id, "2026-03", reason))
	}
	testfactory.WantKind(t, reopen(admin, "typo"), domain.KindForbidden)
	testfactory.WantKind(t, reopen(o.caller, "  "), domain.KindValidation, "reason: required")
	testfactory.WantKind(t, reopen(o.caller, strings.Repeat("x", 2001)), domain.KindValidation, "reason: at most 2000")
	testfactory.WantKind(t, testfactory.Err(svc.Reopen(ctx, o.caller, o.id, "2026", "x")), domain.KindValidation, "period")
	r, err := svc.Reopen(ctx, o.caller, o.id, "2026-03", " "+strings.Repeat("x", 2000)+" ")
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != c.ID || r.ReopenedBy == nil || *r.ReopenedBy != o.owner || r.ReopenedAt == nil || !r.ReopenedAt.Equal(now) ||
		r.ReopenReason == nil || *r.ReopenReason != strings.Repeat("x", 2000) {
		t.Fatalf("reopen %+v", r)
	}
	testfactory.WantKind(t, reopen(o.caller, "again"), domain.KindConflict, "is not closed")
	ps, _ = svc.ListPeriods(ctx, o.caller, o.id, "2026-03", "2026-03")
	if p := ps.Periods[0]; p.Status != capex.PeriodOpen || p.Close != nil || len(p.History) != 1 || p.History[0].ID != c.ID {
		t.Fatalf("reopened March %+v", p)
	}

	// Auto-close: the access comes before the value; the Schedule's export
	// closes the month when the org opted in, and only then.
	testfactory.WantKind(t, svc.SetAutoClose(ctx, member, o.id, nil), domain.KindForbidden)
	testfactory.WantKind(t, svc.SetAutoClose(ctx, o.caller, o.id, nil), domain.KindValidation, "auto_close: required")
	job := func(period string) capex.ExportJob {
		return capex.ExportJob{ExportID: domain.NewID(), OrgID: o.id, Period: period, Trigger: capex.TriggerSchedule}
	}
	if _, err := svc.RunExport(ctx, job("2026-01")); err != nil {
		t.Fatal(err)
	}
	for _, on := range []bool{true, true} {
		if err := svc.SetAutoClose(ctx, o.caller, o.id, &on); err != nil {
			t.Fatal(err)
		}
	}
	if ps, _ := svc.ListPeriods(ctx, o.caller, o.id, "", ""); !ps.AutoClose {
		t.Fatal("auto_close not recorded")
	}
	audits := func(entity uuid.UUID, action string) int {
		t.Helper()
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = $2`, entity, action).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := audits(o.id, "updated"); n != 1 {
		t.Fatalf("turning auto_close on (twice) left %d audit entries, want 1", n)
	}
	feb := job("2026-02")
	e, err := svc.RunExport(ctx, feb)
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != capex.ExportCompleted || e.SizeBytes == nil || *e.SizeBytes == 0 || e.XLSXSizeBytes == nil || e.FinishedAt == nil {
		t.Fatalf("export %+v", e)
	}
	if again, err := svc.RunExport(ctx, feb); err != nil || again.ID != e.ID || again.Status != capex.ExportCompleted {
		t.Fatalf("retried export %+v, %v", again, err)
	}
	if got := strings.Join(states("2026-01", "2026-03"), ", "); got != "2026-01 Open, 2026-02 Closed, 2026-03 Open" {
		t.Fatalf("after the Schedule: %s", got)
	}
	ps, _ = svc.ListPeriods(ctx, o.caller, o.id, "2026-02", "2026-02")
	if cl := ps.Periods[0].Close; cl == nil || cl.ClosedBy != nil {
		t.Fatalf("February's close %+v, want the Schedule's", cl)
	}
	if n := audits(ps.Periods[0].Close.ID, "closed"); n != 1 {
		t.Fatalf("the Schedule's close left %d audit entries, want 1", n)
	}

	// Exports on demand: not of a month that has not begun; a Pending run
	// cannot be downloaded; a failed run records why.
	testfactory.WantKind(t, testfactory.Err(svc.RequestExport(ctx, o.caller, uuid.Nil, "2026-05")), domain.KindValidation, "must not be in the future")
	testfactory.WantKind(t, testfactory.Err(svc.RequestExport(ctx, member, uuid.Nil, "2026-04")), domain.KindForbidden)
	pending, err := svc.RequestExport(ctx, o.caller, uuid.Nil, "2026-04")
	if err != nil {
		t.Fatal(err)
	}
	// The request leaves its job for the worker and its audit entry.
	var jobs int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE topic = $1 AND payload->>'export_id' = $2`,
		capex.TopicExport, pending.ID.String()).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if n := audits(pending.ID, "requested"); jobs != 1 || n != 1 {
		t.Fatalf("the request left %d jobs and %d audit entries, want 1 and 1", jobs, n)
	}
	if pending.OrgID != o.id || pending.Status != capex.ExportPending || pending.Trigger != capex.TriggerManual ||
		pending.RequestedBy == nil || *pending.RequestedBy != o.owner || pending.FinishedAt != nil {
		t.Fatalf("requested %+v", pending)
	}
	testfactory.WantKind(t, downloadErr(svc.Download(ctx, o.caller, pending.ID, false)), domain.KindConflict, "export is Pending")
	failed := job("2026-03")
	if err := svc.FailExport(ctx, failed, "boom"); err != nil {
		t.Fatal(err)
	}
	if f, err := svc.GetExport(ctx, o.caller, failed.ExportID); err != nil || f.Status != capex.ExportFailed || f.Error == nil || *f.Error != "boom" {
		t.Fatalf("failed export %+v, %v", f, err)
	}
	testfactory.WantKind(t, testfactory.Err(svc.GetExport(ctx, o.caller, domain.NewID())), domain.KindNotFound)
	testfactory.WantKind(t, testfactory.Err(svc.GetExport(ctx, member, e.ID)), domain.KindForbidden)
	_, csvFile, err := svc.Download(ctx, o.caller, e.ID, false)
	if err != nil || int64(len(csvFile)) != *e.SizeBytes || !bytes.HasPrefix(csvFile, []byte("Period,")) {
		t.Fatalf("CSV download %d bytes, %v", len(csvFile), err)
	}
	_, book, err := svc.Download(ctx, o.caller, e.ID, true)
	if err != nil || int64(len(book)) != *e.XLSXSizeBytes || !bytes.HasPrefix(book, []byte("PK")) {
		t.Fatalf("XLSX download %d bytes, %v", len(book), err)
	}
	runs, err := svc.ListExports(ctx, o.caller, uuid.Nil, "", domain.Page{Limit: 10})
	if err != nil || len(runs.Items) != 4 {
		t.Fatalf("exports %+v, %v", runs.Items, err)
	}
	if runs, err := svc.ListExports(ctx, o.caller, o.id, "2026-02", domain.Page{Limit: 10}); err != nil || len(runs.Items) != 1 || runs.Items[0].ID != e.ID {
		t.Fatalf("February's exports %+v, %v", runs.Items, err)
	}
	testfactory.WantKind(t, testfactory.Err(svc.ListExports(ctx, o.caller, o.id, "Feb", domain.Page{Limit: 10})), domain.KindValidation, "period")
	testfactory.WantKind(t, testfactory.Err(svc.ListExports(ctx, member, o.id, "", domain.Page{Limit: 10})), domain.KindForbidden)

	// Amortization: March's 60.00 (open again) is construction in progress.
	am, err := svc.Amortization(ctx, o.caller, capex.AmortRequest{From: "2026-02", To: "2026-04"})
	if err != nil {
		t.Fatal(err)
	}
	if len(am.Projects) != 1 || len(am.Months) != 3 || am.Totals.CapitalizedCents != 6000 || am.Totals.NetBookValueCents != 6000 ||
		am.Months[1].ConstructionInProgressCents != 6000 || am.Projects[0].AmortizationMonths != 3 {
		t.Fatalf("amortization %+v", am)
	}
	testfactory.WantKind(t, testfactory.Err(svc.Amortization(ctx, member, capex.AmortRequest{From: "2026-02", To: "2026-04"})), domain.KindForbidden)
	testfactory.WantKind(t, testfactory.Err(svc.Amortization(ctx, o.caller, capex.AmortRequest{From: "2026-04", To: "2026-02"})), domain.KindValidation, "to")
}

func downloadErr(_ capex.Export, _ []byte, err error) error { return err }
