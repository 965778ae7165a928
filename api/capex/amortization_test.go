package capex_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"strings"
	"testing"

	"tracker/domain/capex"
)

func (w *world) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := w.env.DB.Pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

func (w *world) amort(t *testing.T, query string, want int) capex.AmortReport {
	t.Helper()
	var r capex.AmortReport
	res := w.env.Do("GET", "/api/v1/reports/amortization?"+query, w.owner.Token, nil).Expect(t, want)
	if want == 200 {
		res.Decode(t, &r)
	}
	return r
}

// TestAmortization: CORE capitalizes 360.00 in March 2026 (after it was
// placed in service on 2026-02-20) and amortizes over 7 months: 51.42 from
// April to September and the remainder 51.48 in October. Closing March and
// then turning CORE into OpEx leaves the schedule as it was.
func TestAmortization(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.exec(t, `UPDATE projects SET amortization_months = 7, placed_in_service = '2026-02-20' WHERE id = $1`, w.core)
	w.exec(t, `UPDATE projects SET amortization_months = 12 WHERE id = $1`, w.infra) // Preliminary: nothing capitalized

	rep := w.amort(t, q("from", "2026-01", "to", "2026-12"), 200)
	if len(rep.Projects) != 1 || rep.Projects[0].ProjectKey != "CORE" || *rep.Projects[0].PlacedInService != "2026-02-20" {
		t.Fatalf("projects %+v", rep.Projects)
	}
	wantExp := []int64{0, 0, 0, 5142, 5142, 5142, 5142, 5142, 5142, 5148, 0, 0}
	var acc int64
	for i, m := range rep.Projects[0].Months {
		capd := int64(0)
		if m.Period == "2026-03" {
			capd = 36000
		}
		acc += wantExp[i]
		cip := int64(0)
		if i < 2 {
			cip = 0 // nothing capitalized yet
		}
		if m.CapitalizedCents != capd || m.AmortizationCents != wantExp[i] || m.AccumulatedAmortizationCents != acc ||
			m.ConstructionInProgressCents != cip || m.NetBookValueCents != 36000-acc && i >= 2 || m.InService != (i >= 2) {
			t.Errorf("month %s: %+v", m.Period, m)
		}
	}
	if rep.Totals != (capex.AmortTotals{CapitalizedCents: 36000, AmortizationCents: 36000, AccumulatedAmortizationCents: 36000}) {
		t.Fatalf("totals %+v", rep.Totals)
	}
	if len(rep.Months) != 12 || rep.Months[9].AmortizationCents != 5148 {
		t.Fatalf("month sums %+v", rep.Months)
	}

	t.Run("window and project filter", func(t *testing.T) {
		r := w.amort(t, q("from", "2026-05", "to", "2026-05", "project_id", w.core.String()), 200)
		p := r.Projects[0]
		if p.OpeningAccumulatedAmortizationCents != 5142 || p.OpeningNetBookValueCents != 36000-5142 ||
			p.Totals.NetBookValueCents != 36000-2*5142 || len(p.Months) != 1 {
			t.Fatalf("window %+v", p)
		}
		if r := w.amort(t, q("from", "2026-05", "to", "2026-05", "project_id", w.infra.String()), 200); len(r.Projects) != 0 {
			t.Fatalf("infra %+v", r.Projects)
		}
	})

	t.Run("csv", func(t *testing.T) {
		res := w.env.Do("GET", "/api/v1/reports/amortization?"+q("from", "2026-03", "to", "2026-10", "format", "csv"), w.owner.Token, nil).Expect(t, 200)
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Fatalf("content type %q", ct)
		}
		recs, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(recs[0], ",") != strings.Join(capex.AmortCSVHeader, ",") || len(recs) != 1+8+1 {
			t.Fatalf("csv %q", res.Body)
		}
		if got := strings.Join(recs[1], "|"); got != "2026-03|CORE|Core|7|2026-02-20|true|360.00|0.00|0.00|0.00|360.00" {
			t.Fatalf("march %s", got)
		}
		if got := strings.Join(recs[8], "|"); got != "2026-10|CORE|Core|7|2026-02-20|true|0.00|51.48|360.00|0.00|0.00" {
			t.Fatalf("october %s", got)
		}
		if got := strings.Join(recs[9], "|"); got != "Total||||||360.00|360.00|360.00|0.00|0.00" {
			t.Fatalf("total %s", got)
		}
	})

	t.Run("not in service: construction in progress", func(t *testing.T) {
		w.exec(t, `UPDATE projects SET placed_in_service = NULL WHERE id = $1`, w.core)
		defer w.exec(t, `UPDATE projects SET placed_in_service = '2026-02-20' WHERE id = $1`, w.core)
		m := w.amort(t, q("from", "2026-12", "to", "2026-12"), 200).Projects[0].Months[0]
		if m.AmortizationCents != 0 || m.ConstructionInProgressCents != 36000 || m.NetBookValueCents != 36000 || m.InService {
			t.Fatalf("month %+v", m)
		}
	})

	t.Run("roles and 422", func(t *testing.T) {
		org := w.owner.OrgID.String()
		w.env.Do("GET", "/api/v1/reports/amortization?"+q("from", "2026-01", "to", "2026-02", "org_id", org), w.admin.Token, nil).Expect(t, 200)
		w.env.Do("GET", "/api/v1/reports/amortization?"+q("from", "2026-01", "to", "2026-02", "org_id", org), w.member.Token, nil).Expect(t, 403)
		w.env.Do("GET", "/api/v1/reports/amortization?"+q("from", "2026-01", "to", "2026-02", "org_id", w.owner.OrgID.String()), w.outsider.Token, nil).Expect(t, 404)
		for _, query := range []string{"", q("from", "2026-02", "to", "2026-01"), q("from", "2026-01", "to", "2046-01"),
			q("from", "2026-01", "to", "2026-02", "format", "pdf"), q("from", "2026-01", "to", "2026-02", "project_id", "x")} {
			w.env.Do("GET", "/api/v1/reports/amortization?"+query, w.owner.Token, nil).Expect(t, 422)
		}
	})

	t.Run("closed month keeps its capitalized amount", func(t *testing.T) {
		w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201)
		w.exec(t, `UPDATE projects SET development_phase = 'Preliminary' WHERE id = $1`, w.core)
		after := w.amort(t, q("from", "2026-01", "to", "2026-12"), 200)
		if len(after.Projects) != 1 || after.Totals != rep.Totals || after.Projects[0].Months[9] != rep.Projects[0].Months[9] {
			t.Fatalf("after close and phase change %+v", after.Totals)
		}
		w.env.Do("POST", w.periodsPath("/2026-03/reopen"), w.owner.Token, map[string]any{"reason": "fix"}).Expect(t, 200)
		if r := w.amort(t, q("from", "2026-01", "to", "2026-12"), 200); len(r.Projects) != 0 {
			t.Fatalf("reopened: live OpEx classification applies: %+v", r.Projects)
		}
	})
}
