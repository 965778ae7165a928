package capex

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/capexdb"
)

// capitalizedByMonth is each project's CapEx cents by month index up to
// to, exactly as the capitalization report classifies them: a closed
// month's from its snapshot (its policy's decisions and the columns frozen
// then); an open month under a policy as the policy in force decides
// (framework dates, rules, overrides; rules read the tickets as of now);
// an open month before any policy by the project's current
// classification.
func capitalizedByMonth(ctx context.Context, q store.Querier, orgID uuid.UUID, projects []capexdb.AmortProject, to Period,
	now time.Time) (map[uuid.UUID]map[int]int64, error) {
	out := map[uuid.UUID]map[int]int64{}
	if len(projects) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(projects))
	live := map[uuid.UUID]bool{}
	for i, pr := range projects {
		ids[i] = pr.ID
		live[pr.ID] = Classify(pr.CapitalizationType, pr.DevelopmentPhase) == CapEx
		out[pr.ID] = map[int]int64{}
	}
	closes, err := capexdb.Between(ctx, q, orgID, "0000-01", to.String())
	if err != nil {
		return nil, err
	}
	closedAt := map[int]capexdb.Close{}
	for _, c := range closes {
		if c.ReopenedAt != nil {
			continue
		}
		per, err := ParsePeriod("period", c.Period)
		if err != nil {
			return nil, err
		}
		closedAt[monthIndex(per)] = c
	}
	policies, err := capexdb.Policies(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	first := -1 // the first month any policy is in force
	for _, p := range policies {
		if m := monthIndex(PeriodOf(p.EffectiveFrom)); first < 0 || m < first {
			first = m
		}
	}
	rows, err := capexdb.MonthlyAmounts(ctx, q, orgID, ids, to.End())
	if err != nil {
		return nil, err
	}
	governed := map[int]bool{} // open months under a policy
	for _, r := range rows {
		m := monthIndex(PeriodOf(r.Month))
		if _, ok := closedAt[m]; ok {
			continue
		}
		if first >= 0 && m >= first {
			governed[m] = true
		} else if live[r.ProjectID] {
			out[r.ProjectID][m] = r.AmountCents
		}
	}
	f := capexdb.Filter{OrgID: orgID, Restricted: true, Projects: ids}
	add := func(m int, lines []capexdb.Line) {
		for i := range lines {
			if l := &lines[i]; l.ByActivity && classOf(l) == CapEx {
				if _, ok := out[l.ProjectID]; ok {
					out[l.ProjectID][m] += l.AmountCents
				}
			}
		}
	}
	for m := range governed {
		per := periodAt(m)
		pol, err := policyInForce(ctx, q, orgID, per, now)
		if err != nil {
			return nil, err
		}
		f.From, f.To = per.Start(), per.End()
		lines, err := classified(ctx, q, capexdb.Aggregate, f, capexdb.Grouping{}, pol)
		if err != nil {
			return nil, err
		}
		add(m, lines)
	}
	for m, c := range closedAt {
		js, _, err := capexdb.Files(ctx, q, c.ID)
		if err != nil {
			return nil, err
		}
		cl := closed{info: c}
		if err := json.Unmarshal(js, &cl.doc); err != nil {
			return nil, err
		}
		per := periodAt(m)
		f.From, f.To = per.Start(), per.End()
		lines, err := cl.classified(ctx, q, f, capexdb.Grouping{}, cl.doc.Policy)
		if err != nil {
			return nil, err
		}
		add(m, lines)
	}
	for _, c := range out {
		for m, a := range c {
			if a == 0 {
				delete(c, m)
			}
		}
	}
	return out, nil
}
