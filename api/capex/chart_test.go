package capex_test

import (
	"math"
	"strings"
	"testing"

	"tracker/domain/capex"
	"tracker/internal/svgchart/svgcharttest"
)

// TestTrendSVGPlotsTheReports reads the trend chart back with encoding/xml:
// the scale comes from the value axis alone, and each month's CapEx and
// OpEx bars are that month's JSON report totals (with the same filters).
func TestTrendSVGPlotsTheReports(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID.String()
	for _, filter := range [][]string{{"org_id", org}, {"org_id", org, "team_id", w.platform.String()}} {
		name := "all"
		if len(filter) > 2 {
			name = "team filter"
		}
		t.Run(name, func(t *testing.T) {
			res := w.env.Do("GET", "/api/v1/reports/capitalization/trend.svg?"+q(append([]string{"from", "2026-01", "to", "2026-04"}, filter...)...),
				w.admin.Token, nil).Expect(t, 200)
			c, sc := svgcharttest.Served(t, res.Header, res.Body)
			capexBars, err := c.Bars("CapEx")
			if err != nil {
				t.Fatal(err)
			}
			opexBars, err := c.Bars("OpEx")
			if err != nil {
				t.Fatal(err)
			}
			months := []string{"2026-01", "2026-02", "2026-03", "2026-04"}
			if len(capexBars) != len(months) || len(opexBars) != len(months) {
				t.Fatalf("%d CapEx and %d OpEx bars, want %d", len(capexBars), len(opexBars), len(months))
			}
			// Coordinates carry two decimals: a value is exact to a hundredth of a pixel.
			tol := math.Abs(sc.PerUnit)*0.01 + 0.005
			nonzero := 0
			for i, m := range months {
				var rep capex.Report
				w.report(t, w.admin, q(append([]string{"period", m}, filter...)...), 200).Decode(t, &rep)
				for _, s := range []struct {
					name  string
					bar   [3]float64
					cents int64
				}{{"CapEx", capexBars[i], rep.CapExAmountCents}, {"OpEx", opexBars[i], rep.OpExAmountCents}} {
					got := sc.Value(s.bar[1])
					if math.Abs(got-float64(s.cents)/100) > tol {
						t.Errorf("%s %s: plotted %.4f, report says %d cents", m, s.name, got, s.cents)
					}
					if math.Abs(sc.Value(s.bar[1]+s.bar[2])) > tol {
						t.Errorf("%s %s: bar does not stand on 0", m, s.name)
					}
					if s.cents != 0 {
						nonzero++
					}
				}
				if !strings.Contains(strings.Join(c.Texts, "\n"), m) {
					t.Errorf("no label for %s", m)
				}
			}
			if nonzero == 0 {
				t.Fatalf("every month is zero: the fixture proves nothing")
			}
			if l := c.Legend(); strings.Join(l, ",") != "CapEx,OpEx" {
				t.Errorf("legend %v", l)
			}
		})
	}
}

func TestTrendSVGErrorsAndRoles(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/reports/capitalization/trend.svg?"
	org := w.owner.OrgID.String()
	span := q("from", "2026-01", "to", "2026-03", "org_id", org)
	for _, u := range []struct {
		tok  string
		name string
	}{{w.member.Token, "member"}, {w.viewer.Token, "viewer"}, {w.env.APIKey(w.owner, []string{"read"}), "read key"}} {
		r := w.env.Do("GET", path+span, u.tok, nil)
		if r.Status != 403 || !strings.Contains(r.Error().Message, "Admin") {
			t.Errorf("%s: %d %s", u.name, r.Status, r.Body)
		}
	}
	w.env.Do("GET", path+span, w.outsider.Token, nil).Expect(t, 404)
	w.env.Do("GET", path+span, "", nil).Expect(t, 401)
	key := w.env.APIKey(w.owner, []string{"admin"}, w.infra)
	if r := w.env.Do("GET", path+span, key, nil).Expect(t, 403); !strings.Contains(r.Error().Message, "restricted to projects") {
		t.Errorf("project-restricted key: %s", r.Body)
	}
	for _, bad := range []string{q("from", "2026-13"), q("from", "x"), q("from", "2026-04", "to", "2026-03"),
		q("from", "2020-01", "to", "2026-03"), q("from", "2026-01", "tag", "nocolon"), q("activity_type", "Sleeping")} {
		r := w.env.Do("GET", path+bad, w.admin.Token, nil).Expect(t, 422)
		if r.ErrorCode() == "" {
			t.Errorf("%s: no error envelope: %s", bad, r.Body)
		}
	}
	// No bounds: the twelve months ending with the current one.
	c, err := svgcharttest.Parse(w.env.Do("GET", path, w.owner.Token, nil).Expect(t, 200).Body)
	if err != nil {
		t.Fatal(err)
	}
	if bars, _ := c.Bars("CapEx"); len(bars) != 12 {
		t.Errorf("%d months by default, want 12", len(bars))
	}
}
