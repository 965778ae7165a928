package capex_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/capex"
)

// stripClose removes the close metadata so a closed month's report compares
// with the same report computed live before the close.
func stripClose(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "close")
	b, _ := json.Marshal(m)
	return string(b)
}

func (w *world) periodsPath(rest string) string {
	return "/api/v1/orgs/" + w.owner.OrgID.String() + "/periods" + rest
}

// TestPeriodClose closes March, changes a rate and a project's phase, and
// checks every report mode and the CSV still give the numbers of the close;
// then every write into March is a 409 until the Owner reopens it.
func TestPeriodClose(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID
	// Entries in March in every state, made before the close.
	draft := w.entry(t, w.ann, w.coreT, "2026-03-20", 15, "Coding", "Draft")
	submitted := w.entry(t, w.ann, w.coreT, "2026-03-21", 15, "Coding", "Submitted")
	april := w.entry(t, w.ann, w.coreT, "2026-04-02", 15, "Coding", "Draft")

	modes := []string{q("period", "2026-03"), q("period", "2026-03", "group_by", "user"), q("period", "2026-03", "group_by", "team"),
		q("period", "2026-03", "include_budget", "true", "include_users", "true"), q("period", "2026-03", "tag", "dept:rnd"),
		q("period", "2026-03", "tag", "billable:yes"), q("period", "2026-03", "team_id", w.platform.String()),
		q("period", "2026-03", "cost_center_id", "CC-2"), q("period", "2026-03", "activity_type", "Coding", "user_id", w.ann.ID.String())}
	before := map[string]string{}
	for _, m := range modes {
		before[m] = stripClose(t, w.report(t, w.owner, m, 200).Body)
	}
	csvOf := func(query string) []byte {
		return w.env.Do("GET", "/api/v1/reports/capitalization/export?"+query, w.owner.Token, nil).Expect(t, 200).Body
	}
	csvBefore, csvTagBefore := csvOf(q("period", "2026-03")), csvOf(q("period", "2026-03", "tag", "env:prod"))

	t.Run("roles", func(t *testing.T) {
		w.env.Do("POST", w.periodsPath("/2026-03/close"), w.member.Token, nil).Expect(t, 403)
		w.env.Do("POST", w.periodsPath("/2026-03/close"), w.viewer.Token, nil).Expect(t, 403)
		w.env.Do("POST", w.periodsPath("/2026-03/close"), w.outsider.Token, nil).Expect(t, 404)
		w.env.Do("POST", w.periodsPath("/2099-01/close"), w.admin.Token, nil).Expect(t, 422)
		w.env.Do("POST", w.periodsPath("/2026-13/close"), w.admin.Token, nil).Expect(t, 422)
	})

	var cl capex.CloseInfo
	w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201).Decode(t, &cl)
	sum := sha256.Sum256(csvBefore)
	if cl.SHA256 != hex.EncodeToString(sum[:]) || cl.Entries != 5 || cl.ClosedBy == nil || *cl.ClosedBy != w.admin.ID || cl.Period != "2026-03" {
		t.Fatalf("close %+v, want sha256 %x of the CSV, 5 entries, closed by admin", cl, sum)
	}
	if r := w.env.Do("POST", w.periodsPath("/2026-03/close"), w.owner.Token, nil).Expect(t, 409); !strings.Contains(r.Error().Message, "already closed") {
		t.Fatalf("second close: %s", r.Body)
	}

	// A rate that would reprice March (effective in February, which is
	// open) and a phase change that would turn CORE into OpEx.
	w.env.Do("POST", "/api/v1/labor-rates", w.admin.Token, map[string]any{"user_id": w.ann.ID, "org_id": org,
		"loaded_rate_cents": 20000, "effective_date": "2026-02-15"}).Expect(t, 201)
	if _, err := w.env.DB.Pool.Exec(context.Background(), `UPDATE projects SET development_phase = 'Preliminary', name = 'Renamed' WHERE id = $1`, w.core); err != nil {
		t.Fatal(err)
	}

	t.Run("served from the snapshot", func(t *testing.T) {
		for _, m := range modes {
			r := w.report(t, w.owner, m, 200)
			if got := stripClose(t, r.Body); got != before[m] {
				t.Errorf("%s changed after close:\n got %s\nwant %s", m, got, before[m])
			}
			if c, _ := r.Map(t)["close"].(map[string]any); c == nil || c["sha256"] != cl.SHA256 {
				t.Errorf("%s: no close metadata: %s", m, r.Body)
			}
		}
		var rep capex.Report
		w.report(t, w.owner, q("period", "2026-03"), 200).Decode(t, &rep)
		if rep.TotalAmountCents != 50000 || rep.CapExAmountCents != 36000 || rep.OpExAmountCents != 14000 {
			t.Fatalf("frozen totals %+v, want 50000 = 36000 CapEx + 14000 OpEx", rep.Totals)
		}
		if got := csvOf(q("period", "2026-03")); string(got) != string(csvBefore) {
			t.Fatalf("CSV changed:\n%s\nwant\n%s", got, csvBefore)
		}
		if got := csvOf(q("period", "2026-03", "tag", "env:prod")); string(got) != string(csvTagBefore) {
			t.Fatalf("filtered CSV changed:\n%s\nwant\n%s", got, csvTagBefore)
		}
	})

	t.Run("writes into the closed month are 409", func(t *testing.T) {
		entry := func(id uuid.UUID) string { return "/api/v1/time-entries/" + id.String() }
		for _, c := range []struct {
			name, method, path, token string
			body                      any
		}{
			{"create", "POST", "/api/v1/time-entries", w.ann.Token, map[string]any{"user_id": w.ann.ID, "ticket_id": w.coreT.ID,
				"project_id": w.core, "date": "2026-03-30", "duration_minutes": 30, "activity_type": "Coding"}},
			{"edit", "PATCH", entry(draft), w.ann.Token, map[string]any{"duration_minutes": 45}},
			{"edit into", "PATCH", entry(april), w.ann.Token, map[string]any{"date": "2026-03-31"}},
			{"submit", "POST", entry(draft) + "/submit", w.ann.Token, nil},
			{"approve", "POST", entry(submitted) + "/approve", w.admin.Token, nil},
			{"delete", "DELETE", entry(draft), w.ann.Token, nil},
			{"rate", "POST", "/api/v1/labor-rates", w.admin.Token, map[string]any{"user_id": w.bob.ID, "org_id": org,
				"loaded_rate_cents": 1, "effective_date": "2026-03-15"}},
		} {
			r := w.env.Do(c.method, c.path, c.token, c.body).Expect(t, 409)
			e := r.Error()
			if e.Code != "CONFLICT" || !strings.Contains(e.Message, "period 2026-03 is closed") || len(e.Details) == 0 || e.Details[0] != "period: 2026-03" {
				t.Errorf("%s: %s", c.name, r.Body)
			}
		}
		var n int
		_ = w.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM time_entries WHERE org_id = $1 AND date >= '2026-03-01'
			AND date < '2026-04-01' AND ((id = $2 AND status = 'Draft' AND duration_minutes = 15) OR (id = $3 AND status = 'Submitted'))`,
			org, draft, submitted).Scan(&n)
		if n != 2 {
			t.Fatalf("the refused writes changed entries")
		}
		// April is open.
		w.env.Do("PATCH", entry(april), w.ann.Token, map[string]any{"duration_minutes": 20}).Expect(t, 200)
		w.env.Do("POST", "/api/v1/labor-rates", w.admin.Token, map[string]any{"user_id": w.bob.ID, "org_id": org,
			"loaded_rate_cents": 1, "effective_date": "2026-04-15"}).Expect(t, 201)
	})

	t.Run("list", func(t *testing.T) {
		var ps capex.Periods
		w.env.Do("GET", w.periodsPath("?from=2026-02&to=2026-04"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ps)
		if len(ps.Periods) != 3 || ps.Periods[0].Status != "Open" || ps.Periods[1].Status != "Closed" || ps.Periods[2].Status != "Open" ||
			ps.Periods[1].Close.SHA256 != cl.SHA256 || ps.AutoClose {
			t.Fatalf("periods %+v", ps)
		}
		w.env.Do("GET", w.periodsPath("?from=2026-04&to=2026-02"), w.admin.Token, nil).Expect(t, 422)
		w.env.Do("GET", w.periodsPath("?from=2000-01&to=2026-02"), w.admin.Token, nil).Expect(t, 422)
		w.env.Do("GET", w.periodsPath(""), w.member.Token, nil).Expect(t, 403)
	})

	t.Run("reopen", func(t *testing.T) {
		w.env.Do("POST", w.periodsPath("/2026-03/reopen"), w.admin.Token, map[string]any{"reason": "x"}).Expect(t, 403)
		w.env.Do("POST", w.periodsPath("/2026-03/reopen"), w.owner.Token, map[string]any{"reason": "  "}).Expect(t, 422)
		w.env.Do("POST", w.periodsPath("/2026-04/reopen"), w.owner.Token, map[string]any{"reason": "x"}).Expect(t, 409)
		var ro capex.CloseInfo
		w.env.Do("POST", w.periodsPath("/2026-03/reopen"), w.owner.Token, map[string]any{"reason": "late invoice"}).Expect(t, 200).Decode(t, &ro)
		if ro.ReopenReason == nil || *ro.ReopenReason != "late invoice" || ro.ReopenedBy == nil || *ro.ReopenedBy != w.owner.ID {
			t.Fatalf("reopen %+v", ro)
		}
		var audited int
		_ = w.env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND entity_type = 'period'
			AND action = 'reopened' AND entity_id = $2 AND actor_id = $3 AND changes::text LIKE '%late invoice%'`, org, cl.ID, w.owner.ID).Scan(&audited)
		if audited != 1 {
			t.Fatalf("reopen not audited")
		}
		// Live again: Ann's new rate and CORE's new phase now count.
		var rep capex.Report
		w.report(t, w.owner, q("period", "2026-03"), 200).Decode(t, &rep)
		if rep.Close != nil || rep.TotalAmountCents != 85000 || rep.CapExAmountCents != 0 {
			t.Fatalf("live totals after reopen %+v (close %v), want 85000, no CapEx", rep.Totals, rep.Close)
		}
		w.env.Do("POST", "/api/v1/time-entries/"+draft.String()+"/submit", w.ann.Token, nil).Expect(t, 200)
		// Closing again takes a new snapshot; the first stays in the history.
		var again capex.CloseInfo
		w.env.Do("POST", w.periodsPath("/2026-03/close"), w.owner.Token, nil).Expect(t, 201).Decode(t, &again)
		if again.SHA256 == cl.SHA256 || again.Entries != 5 {
			t.Fatalf("second close %+v", again)
		}
		var ps capex.Periods
		w.env.Do("GET", w.periodsPath("?from=2026-03&to=2026-03"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ps)
		if len(ps.Periods) != 1 || ps.Periods[0].Close.ID != again.ID || len(ps.Periods[0].History) != 1 || ps.Periods[0].History[0].ID != cl.ID {
			t.Fatalf("periods %+v", ps)
		}
	})
}

// TestScheduledClose: the monthly run closes the previous month of an org
// that opted in (closed_by null) and stores the snapshot's CSV; an org that
// did not opt in stays open.
func TestScheduledClose(t *testing.T) {
	t.Parallel()
	w := setup(t)
	ctx := context.Background()
	job := capex.ExportJob{ExportID: uuid.New(), OrgID: w.owner.OrgID, Period: "2026-03", Trigger: capex.TriggerSchedule}
	if _, err := w.run.svc.RunExport(ctx, job); err != nil {
		t.Fatal(err)
	}
	var ps capex.Periods
	w.env.Do("GET", w.periodsPath("?from=2026-03&to=2026-03"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ps)
	if ps.Periods[0].Status != "Open" {
		t.Fatalf("closed without opt-in: %+v", ps)
	}
	w.env.Do("PUT", w.periodsPath("/settings"), w.member.Token, map[string]any{"auto_close": true}).Expect(t, 403)
	w.env.Do("PUT", w.periodsPath("/settings"), w.admin.Token, map[string]any{}).Expect(t, 422)
	r := w.env.Do("PUT", w.periodsPath("/settings"), w.admin.Token, map[string]any{"auto_close": true}).Expect(t, 200)
	if r.Map(t)["auto_close"] != true {
		t.Fatalf("settings %s", r.Body)
	}
	job.ExportID = uuid.New()
	e, err := w.run.svc.RunExport(ctx, job)
	if err != nil {
		t.Fatal(err)
	}
	// A retried activity finds the month closed and keeps the close.
	if _, err := w.run.svc.RunExport(ctx, capex.ExportJob{ExportID: uuid.New(), OrgID: w.owner.OrgID, Period: "2026-03", Trigger: capex.TriggerSchedule}); err != nil {
		t.Fatal(err)
	}
	w.env.Do("GET", w.periodsPath("?from=2026-03&to=2026-03"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ps)
	c := ps.Periods[0].Close
	if ps.Periods[0].Status != "Closed" || c.ClosedBy != nil || len(ps.Periods[0].History) != 0 || !ps.AutoClose {
		t.Fatalf("periods %+v", ps)
	}
	file := w.env.Do("GET", "/api/v1/reports/capitalization/exports/"+e.ID.String()+"/download", w.admin.Token, nil).Expect(t, 200).Body
	sum := sha256.Sum256(file)
	if hex.EncodeToString(sum[:]) != c.SHA256 {
		t.Fatalf("stored export is not the snapshot's CSV")
	}
}
