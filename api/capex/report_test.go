package capex_test

import (
	"fmt"
	"strings"
	"testing"

	"tracker/domain/capex"
)

// summary renders a report's projects as "KEY hours cents" for comparison.
func summary(ps []capex.ProjectReport) string {
	var b []string
	for _, p := range ps {
		b = append(b, fmt.Sprintf("%s %s %d", p.ProjectKey, p.TotalHours, p.TotalAmountCents))
	}
	return strings.Join(b, "; ")
}

func TestReportDefault(t *testing.T) {
	t.Parallel()
	w := setup(t)
	var rep capex.Report
	w.report(t, w.owner, q("period", "2026-03"), 200).Decode(t, &rep)
	if rep.Period != "2026-03" || rep.Projects == nil || rep.Teams != nil || rep.Users != nil {
		t.Fatalf("shape: %+v", rep)
	}
	if got, want := summary(*rep.Projects), "CORE 4.00 36000; INFRA 1.50 9000; LEGACY 0.50 5000"; got != want {
		t.Fatalf("projects %q, want %q", got, want)
	}
	core := (*rep.Projects)[0]
	if core.ProjectName != "Core" || *core.DevelopmentPhase != "ApplicationDevelopment" || *core.CostCenterID != "CC-1" ||
		core.CapExOpEx != "CapEx" || core.CapitalizationType != nil || core.Users != nil || core.BudgetFields != nil {
		t.Fatalf("core: %+v", core)
	}
	if got := fmt.Sprint(core.Breakdown); got != "[{Coding 3.00 26000} {CodeReview 1.00 10000}]" {
		t.Fatalf("breakdown %s", got)
	}
	if (*rep.Projects)[1].CapExOpEx != "OpEx" || (*rep.Projects)[2].CapExOpEx != "OpEx" {
		t.Fatalf("Preliminary and PostImplementation are OpEx")
	}
	if rep.TotalAmountCents != 50000 || rep.CapExAmountCents != 36000 || rep.OpExAmountCents != 14000 || rep.TotalHours.String() != "6.00" {
		t.Fatalf("totals %+v", rep.Totals)
	}
	raw := w.report(t, w.admin, q("period", "2026-03", "org_id", w.owner.OrgID.String()), 200).Map(t)
	p0 := raw["projects"].([]any)[0].(map[string]any)
	for _, k := range []string{"project_id", "project_key", "project_name", "capitalization_type", "development_phase",
		"cost_center_id", "total_hours", "total_amount_cents", "breakdown"} {
		if _, ok := p0[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
	if _, ok := p0["budget_cents"]; ok {
		t.Errorf("budget fields without include_budget")
	}
	if !strings.Contains(string(w.report(t, w.owner, q("period", "2026-03"), 200).Body), `"total_hours":4.00`) {
		t.Errorf("hours must render with two decimals")
	}

	t.Run("a month without entries", func(t *testing.T) {
		var empty capex.Report
		w.report(t, w.owner, q("period", "2025-03"), 200).Decode(t, &empty)
		if empty.Projects == nil || len(*empty.Projects) != 0 {
			t.Fatalf("projects must be []: %s", w.report(t, w.owner, q("period", "2025-03"), 200).Body)
		}
	})
	t.Run("include_users", func(t *testing.T) {
		var r capex.Report
		w.report(t, w.owner, q("period", "2026-03", "include_users", "true"), 200).Decode(t, &r)
		core := (*r.Projects)[0]
		if len(core.Users) != 2 {
			t.Fatalf("users %+v", core.Users)
		}
		got := map[string]string{}
		for _, u := range core.Users {
			got[u.UserID.String()] = fmt.Sprintf("%s %d", u.TotalHours, u.TotalAmountCents)
		}
		if got[w.ann.ID.String()] != "3.00 30000" || got[w.bob.ID.String()] != "1.00 6000" {
			t.Fatalf("users %v", got)
		}
	})
	t.Run("include_budget", func(t *testing.T) {
		var r capex.Report
		w.report(t, w.owner, q("period", "2026-03", "include_budget", "true"), 200).Decode(t, &r)
		got := map[string]string{}
		for _, p := range *r.Projects {
			b := p.BudgetFields
			got[p.ProjectKey] = fmt.Sprintf("%s budget=%d spent=%d remaining=%d pct=%s", *b.BudgetPeriod, *b.BudgetCents,
				*b.SpentCents, *b.BudgetRemainingCents, b.BudgetUtilizationPct)
		}
		want := map[string]string{
			"CORE":   "Monthly budget=100000 spent=36000 remaining=64000 pct=36.00",
			"INFRA":  "Quarterly budget=100000 spent=9000 remaining=91000 pct=9.00", // 3000.00 a quarter → 1000.00 a month
			"LEGACY": "Fixed budget=50000 spent=105000 remaining=-55000 pct=210.00", // all time up to the period's end
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s, want %s", k, got[k], v)
			}
		}
	})
	t.Run("include_budget without a budget gives nulls", func(t *testing.T) {
		w.env.Exec(t, "UPDATE projects SET budget_cents = NULL, budget_period = NULL WHERE id = $1", w.infra)
		defer w.env.Exec(t, "UPDATE projects SET budget_cents = 300000, budget_period = 'Quarterly' WHERE id = $1", w.infra)
		raw := w.report(t, w.owner, q("period", "2026-03", "include_budget", "true"), 200).Map(t)
		infra := raw["projects"].([]any)[1].(map[string]any)
		for _, k := range []string{"budget_cents", "budget_period", "spent_cents", "budget_remaining_cents", "budget_utilization_pct"} {
			v, ok := infra[k]
			if !ok || v != nil {
				t.Errorf("%s = %v (present %v), want null", k, v, ok)
			}
		}
	})
}

func TestReportGroups(t *testing.T) {
	t.Parallel()
	w := setup(t)
	t.Run("group_by=team", func(t *testing.T) {
		var r capex.Report
		w.report(t, w.owner, q("period", "2026-03", "group_by", "team"), 200).Decode(t, &r)
		if r.Teams == nil || r.Projects != nil {
			t.Fatalf("shape %+v", r)
		}
		var got []string
		for _, tm := range *r.Teams {
			name := "<none>"
			if tm.TeamName != nil {
				name = *tm.TeamName
			}
			got = append(got, fmt.Sprintf("%s %s %d [%s]", name, tm.TotalHours, tm.TotalAmountCents, summary(tm.Projects)))
		}
		want := "Infra 1.50 9000 [INFRA 1.50 9000] | Platform 4.00 36000 [CORE 4.00 36000] | <none> 0.50 5000 [LEGACY 0.50 5000]"
		if strings.Join(got, " | ") != want {
			t.Fatalf("teams\n got %s\nwant %s", strings.Join(got, " | "), want)
		}
		if *(*r.Teams)[1].TeamID != w.platform || (*r.Teams)[2].TeamID != nil {
			t.Fatalf("team ids")
		}
	})
	t.Run("group_by=user", func(t *testing.T) {
		raw := w.report(t, w.owner, q("period", "2026-03", "group_by", "user"), 200).Map(t)
		if _, ok := raw["users"]; !ok {
			t.Fatalf("no users: %v", raw)
		}
		var r capex.Report
		w.report(t, w.owner, q("period", "2026-03", "group_by", "user"), 200).Decode(t, &r)
		got := map[string]string{}
		for _, u := range *r.Users {
			if u.DisplayName != "member" {
				t.Fatalf("display name %q", u.DisplayName)
			}
			got[u.UserID.String()] = fmt.Sprintf("%s %d [%s]", u.TotalHours, u.TotalAmountCents, summary(u.Projects))
		}
		if g := got[w.ann.ID.String()]; g != "3.50 35000 [CORE 3.00 30000; LEGACY 0.50 5000]" {
			t.Errorf("ann: %s", g)
		}
		if g := got[w.bob.ID.String()]; g != "2.50 15000 [CORE 1.00 6000; INFRA 1.50 9000]" {
			t.Errorf("bob: %s", g)
		}
	})
}

func TestReportFilters(t *testing.T) {
	t.Parallel()
	w := setup(t)
	tests := []struct {
		name  string
		query []string
		want  string
	}{
		{"team_id", []string{"team_id", w.platform.String()}, "CORE 4.00 36000"},
		{"user_id", []string{"user_id", w.bob.ID.String()}, "CORE 1.00 6000; INFRA 1.50 9000"},
		{"cost_center_id", []string{"cost_center_id", "CC-2"}, "INFRA 1.50 9000"},
		{"activity_type", []string{"activity_type", "Coding"}, "CORE 3.00 26000"},
		{"team and user", []string{"team_id", w.platform.String(), "user_id", w.ann.ID.String()}, "CORE 3.00 30000"},
		{"tag of a project", []string{"tag", "env:prod"}, "CORE 4.00 36000; INFRA 1.50 9000"},
		{"tag of a ticket", []string{"tag", "kind:bug"}, "LEGACY 0.50 5000"},
		{"tag of a user", []string{"tag", "dept:rnd"}, "CORE 1.00 6000; INFRA 1.50 9000"},
		{"tag of a time entry", []string{"tag", "billable:yes"}, "CORE 1.00 10000"},
		{"two tags are ANDed", []string{"tag", "env:prod,dept:rnd"}, "CORE 1.00 6000; INFRA 1.50 9000"},
		{"AND across entity kinds", []string{"tag", "env:prod,billable:yes"}, "CORE 1.00 10000"},
		{"AND that nothing meets", []string{"tag", "env:prod,kind:bug"}, ""},
		{"values match exactly", []string{"tag", "env:PROD"}, ""},
		{"an unknown tag", []string{"tag", "nope:nope"}, ""},
		{"an unknown team", []string{"team_id", "00000000-0000-7000-8000-000000000000"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r capex.Report
			w.report(t, w.owner, q(append([]string{"period", "2026-03"}, tt.query...)...), 200).Decode(t, &r)
			if got := summary(*r.Projects); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReportErrorsAndRoles(t *testing.T) {
	t.Parallel()
	w := setup(t)
	t.Run("422", func(t *testing.T) {
		for _, query := range []string{
			"", q("period", "2026-3"), q("period", "2026-13"), q("period", "March"), q("period", "2026-03-01"),
			q("period", "2026-03", "group_by", "project"), q("period", "2026-03", "activity_type", "Lunch"),
			q("period", "2026-03", "tag", "env"), q("period", "2026-03", "tag", "env:"), q("period", "2026-03", "include_budget", "maybe"),
			q("period", "2026-03", "team_id", "x"), q("period", "2026-03", "user_id", "1"), q("period", "2026-03", "org_id", "x"),
		} {
			r := w.report(t, w.owner, query, 422)
			if r.ErrorCode() != "VALIDATION_ERROR" {
				t.Fatalf("%q: %s", query, r.Body)
			}
		}
		r := w.report(t, w.owner, "", 422)
		if !strings.Contains(strings.Join(r.Error().Details, ""), "period") {
			t.Fatalf("missing period: %s", r.Body)
		}
	})
	t.Run("403 below Admin", func(t *testing.T) {
		org := w.owner.OrgID.String()
		for _, u := range []struct {
			tok  string
			name string
		}{{w.member.Token, "member"}, {w.viewer.Token, "viewer"}, {w.env.APIKey(w.owner, []string{"read"}), "read key"}} {
			for _, path := range []string{"/api/v1/reports/capitalization", "/api/v1/reports/capitalization/export",
				"/api/v1/reports/capitalization/exports"} {
				r := w.env.Do("GET", path+"?"+q("period", "2026-03", "org_id", org), u.tok, nil)
				if r.Status != 403 || !strings.Contains(r.Error().Message, "Admin") {
					t.Fatalf("%s %s: %d %s", u.name, path, r.Status, r.Body)
				}
			}
			w.env.Do("POST", "/api/v1/reports/capitalization/exports", u.tok, map[string]any{"period": "2026-03", "org_id": org}).Expect(t, 403)
		}
	})
	t.Run("404 for a non-member", func(t *testing.T) {
		org := w.owner.OrgID.String()
		for _, path := range []string{"/api/v1/reports/capitalization", "/api/v1/reports/capitalization/export",
			"/api/v1/reports/capitalization/exports"} {
			w.env.Do("GET", path+"?"+q("period", "2026-03", "org_id", org), w.outsider.Token, nil).Expect(t, 404)
		}
		w.env.Do("POST", "/api/v1/reports/capitalization/exports", w.outsider.Token, map[string]any{"period": "2026-03", "org_id": org}).Expect(t, 404)
	})
	t.Run("the session org is the default; a caller's own org is theirs", func(t *testing.T) {
		var r capex.Report
		w.report(t, w.outsider, q("period", "2026-03"), 200).Decode(t, &r)
		if len(*r.Projects) != 0 {
			t.Fatalf("outsider's own org has no projects")
		}
		w.report(t, w.admin, q("period", "2026-03", "org_id", w.owner.OrgID.String()), 200).Decode(t, &r)
		if len(*r.Projects) != 3 {
			t.Fatalf("admin via org_id: %d projects", len(*r.Projects))
		}
	})
	t.Run("an admin-scoped key limited to a project gets 403: reports are org-level", func(t *testing.T) {
		key := w.env.APIKey(w.owner, []string{"admin"}, w.infra)
		r := w.env.Do("GET", "/api/v1/reports/capitalization?"+q("period", "2026-03"), key, nil).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "restricted to projects") {
			t.Fatalf("message %s", r.Body)
		}
	})
}
