package capex

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// The amortization schedule. A project amortizes when it
// has amortization_months of at least 1. Its capitalized amount of a month
// is exactly the CapEx amount the capitalization report shows for it in that
// month (a closed month's snapshot, with the policy and classification
// frozen then; an open month under the policy in force then, or before any
// policy by the project's current classification).
//
// Straight line, in integer cents, by layer:
//   - Construction in progress: everything capitalized up to and including
//     the month of placed_in_service (or all of it while the project has
//     none) accumulates as one amount; from the month after the month of
//     placed_in_service it amortizes over amortization_months.
//   - Every month capitalized after the month of placed_in_service is its
//     own layer, amortized over amortization_months from the month after.
//   - A layer of A cents over N months expenses floor(A/N) in each of its
//     first N-1 months and A - (N-1)*floor(A/N) in its last: the rounding
//     remainder goes to the last month, so every layer amortizes to exactly
//     A and the totals reconcile to the cent.
//
// Per month: accumulated amortization is every layer's expense up to that
// month (months before the requested range included); net book value is
// everything capitalized up to that month (construction in progress
// included) minus the accumulated amortization.

// MaxAmortMonths bounds the months of one amortization request.
const MaxAmortMonths = 240

// AmortQuery is a parsed amortization request.
type AmortQuery struct {
	OrgID     uuid.UUID // uuid.Nil: the caller's session org
	From, To  Period
	ProjectID uuid.UUID
}

// ParseAmortQuery validates from and to (YYYY-MM, from <= to, at most
// MaxAmortMonths months).
func ParseAmortQuery(orgID uuid.UUID, from, to string, projectID uuid.UUID) (AmortQuery, error) {
	var probs domain.Problems
	q := AmortQuery{OrgID: orgID, ProjectID: projectID}
	var err error
	if q.From, err = ParsePeriod("from", from); err != nil {
		probs = append(probs, domain.AsError(err).Details...)
	}
	if q.To, err = ParsePeriod("to", to); err != nil {
		probs = append(probs, domain.AsError(err).Details...)
	}
	if len(probs) == 0 {
		switch n := monthIndex(q.To) - monthIndex(q.From) + 1; {
		case n < 1:
			probs.Add("to", "must not be before from")
		case n > MaxAmortMonths:
			probs.Add("to", "must be at most 240 months after from")
		}
	}
	return q, probs.Err()
}

// AmortReport is the amortization schedule of [From, To].
type AmortReport struct {
	From     string         `json:"from"`
	To       string         `json:"to"`
	Projects []AmortProject `json:"projects"`
	// Totals sum the projects: capitalized and amortization over the range,
	// accumulated amortization and net book value at its end.
	Totals AmortTotals `json:"totals"`
	// Months sum the projects month by month.
	Months []AmortMonth `json:"months"`
}

// AmortTotals are the totals of a project or of the report over the range.
type AmortTotals struct {
	CapitalizedCents             int64 `json:"capitalized_cents"`
	AmortizationCents            int64 `json:"amortization_cents"`
	AccumulatedAmortizationCents int64 `json:"accumulated_amortization_cents"`
	NetBookValueCents            int64 `json:"net_book_value_cents"`
}

// AmortProject is one project's schedule.
type AmortProject struct {
	ProjectID          uuid.UUID `json:"project_id"`
	ProjectKey         string    `json:"project_key"`
	ProjectName        string    `json:"project_name"`
	AmortizationMonths int64     `json:"amortization_months"`
	PlacedInService    *string   `json:"placed_in_service"`
	// Opening balances at the start of From.
	OpeningAccumulatedAmortizationCents int64        `json:"opening_accumulated_amortization_cents"`
	OpeningNetBookValueCents            int64        `json:"opening_net_book_value_cents"`
	Totals                              AmortTotals  `json:"totals"`
	Months                              []AmortMonth `json:"months"`
}

// AmortMonth is one month of a schedule. ConstructionInProgressCents is the
// part of the net book value not yet in service.
type AmortMonth struct {
	Period                       string `json:"period"`
	InService                    bool   `json:"in_service"`
	CapitalizedCents             int64  `json:"capitalized_cents"`
	AmortizationCents            int64  `json:"amortization_cents"`
	AccumulatedAmortizationCents int64  `json:"accumulated_amortization_cents"`
	ConstructionInProgressCents  int64  `json:"construction_in_progress_cents"`
	NetBookValueCents            int64  `json:"net_book_value_cents"`
}

// monthIndex numbers months consecutively.
func monthIndex(p Period) int { return p.Year*12 + int(p.Month) - 1 }

func periodAt(i int) Period {
	return Period{Year: i / 12, Month: timeMonth(i%12 + 1)}
}

// layer is an amount amortized over n months from month index start.
type layer struct {
	start  int
	amount int64
}

// expenseAt is the layer's expense in month index m: floor(A/N) in each
// month but the last, which takes the remainder.
func (l layer) expenseAt(m int, n int64) int64 {
	k := int64(m - l.start)
	if k < 0 || k >= n {
		return 0
	}
	base := l.amount / n
	if k == n-1 {
		return l.amount - base*(n-1)
	}
	return base
}

// expensedBefore is the layer's expense over every month before index m.
func (l layer) expensedBefore(m int, n int64) int64 {
	k := int64(m - l.start)
	switch {
	case k <= 0:
		return 0
	case k >= n:
		return l.amount
	}
	return (l.amount / n) * k
}

// Amortize computes one project's schedule over [from, to]. capitalized
// holds the capitalized cents by month index (any months; those after to
// are ignored); inService is the month index of placed_in_service, or nil.
func Amortize(capitalized map[int]int64, months int64, inService *int, from, to Period) (opening AmortTotals, out []AmortMonth) {
	f, t := monthIndex(from), monthIndex(to)
	var layers []layer
	var cip int64 // capitalized up to and including the in-service month
	for m, a := range capitalized {
		if m > t || a == 0 {
			continue
		}
		if inService == nil || m <= *inService {
			cip += a
		} else {
			layers = append(layers, layer{start: m + 1, amount: a})
		}
	}
	if inService != nil && cip != 0 {
		layers = append(layers, layer{start: *inService + 1, amount: cip})
	}
	var capBefore, accBefore int64
	for m, a := range capitalized {
		if m < f {
			capBefore += a
		}
	}
	for _, l := range layers {
		accBefore += l.expensedBefore(f, months)
	}
	opening = AmortTotals{AccumulatedAmortizationCents: accBefore, NetBookValueCents: capBefore - accBefore}
	capTo, acc := capBefore, accBefore
	out = make([]AmortMonth, 0, t-f+1)
	for m := f; m <= t; m++ {
		row := AmortMonth{Period: periodAt(m).String(), InService: inService != nil && m > *inService,
			CapitalizedCents: capitalized[m]}
		for _, l := range layers {
			row.AmortizationCents += l.expenseAt(m, months)
		}
		capTo += row.CapitalizedCents
		acc += row.AmortizationCents
		row.AccumulatedAmortizationCents = acc
		row.NetBookValueCents = capTo - acc
		if !row.InService {
			row.ConstructionInProgressCents = capTo
		}
		out = append(out, row)
	}
	return opening, out
}

// AmortRequest is an amortization request as the query string gives it.
type AmortRequest struct {
	OrgID, ProjectID uuid.UUID
	From, To         string
}

// Amortization computes the schedule of req (Admin, like the capitalization
// report; an API key limited to projects sees only those). The caller's
// access is checked before the months are validated, so a non-member learns
// nothing from a 422.
func (s *Service) Amortization(ctx context.Context, p domain.Principal, req AmortRequest) (AmortReport, error) {
	q := s.DB.Q()
	if req.OrgID == uuid.Nil {
		req.OrgID = p.OrgID
	}
	if _, err := domain.OrgAccess(ctx, q, p, req.OrgID, MinRole, "organization"); err != nil {
		return AmortReport{}, err
	}
	aq, err := ParseAmortQuery(req.OrgID, req.From, req.To, req.ProjectID)
	if err != nil {
		return AmortReport{}, err
	}
	projects, err := capexdb.AmortProjects(ctx, q, aq.OrgID, aq.ProjectID, len(p.ProjectIDs) > 0, p.ProjectIDs)
	if err != nil {
		return AmortReport{}, err
	}
	caps, err := capitalizedByMonth(ctx, q, aq.OrgID, projects, aq.To, s.now())
	if err != nil {
		return AmortReport{}, err
	}
	return BuildAmortization(aq, projects, caps), nil
}

// BuildAmortization assembles the report from the projects and their
// capitalized cents by month index. A project with nothing capitalized up
// to To is listed only while it is classified CapEx.
func BuildAmortization(aq AmortQuery, projects []capexdb.AmortProject, caps map[uuid.UUID]map[int]int64) AmortReport {
	r := AmortReport{From: aq.From.String(), To: aq.To.String(), Projects: []AmortProject{}}
	t := monthIndex(aq.To)
	for _, pr := range projects {
		c := caps[pr.ID]
		has := false
		for m, a := range c {
			if m <= t && a != 0 {
				has = true
			}
		}
		if !has && Classify(pr.CapitalizationType, pr.DevelopmentPhase) != CapEx {
			continue
		}
		var in *int
		var inStr *string
		if pr.PlacedInService != nil {
			i := monthIndex(PeriodOf(*pr.PlacedInService))
			in = &i
			s := pr.PlacedInService.UTC().Format("2006-01-02")
			inStr = &s
		}
		opening, months := Amortize(c, pr.AmortizationMonths, in, aq.From, aq.To)
		ap := AmortProject{ProjectID: pr.ID, ProjectKey: pr.Key, ProjectName: pr.Name,
			AmortizationMonths: pr.AmortizationMonths, PlacedInService: inStr,
			OpeningAccumulatedAmortizationCents: opening.AccumulatedAmortizationCents,
			OpeningNetBookValueCents:            opening.NetBookValueCents, Months: months}
		for _, m := range months {
			ap.Totals.CapitalizedCents += m.CapitalizedCents
			ap.Totals.AmortizationCents += m.AmortizationCents
		}
		last := months[len(months)-1]
		ap.Totals.AccumulatedAmortizationCents, ap.Totals.NetBookValueCents = last.AccumulatedAmortizationCents, last.NetBookValueCents
		r.Projects = append(r.Projects, ap)
	}
	for i := monthIndex(aq.From); i <= t; i++ {
		r.Months = append(r.Months, AmortMonth{Period: periodAt(i).String()})
	}
	for _, ap := range r.Projects {
		for i, m := range ap.Months {
			sum := &r.Months[i]
			sum.CapitalizedCents += m.CapitalizedCents
			sum.AmortizationCents += m.AmortizationCents
			sum.AccumulatedAmortizationCents += m.AccumulatedAmortizationCents
			sum.ConstructionInProgressCents += m.ConstructionInProgressCents
			sum.NetBookValueCents += m.NetBookValueCents
			sum.InService = sum.InService || m.InService
		}
		r.Totals.CapitalizedCents += ap.Totals.CapitalizedCents
		r.Totals.AmortizationCents += ap.Totals.AmortizationCents
		r.Totals.AccumulatedAmortizationCents += ap.Totals.AccumulatedAmortizationCents
		r.Totals.NetBookValueCents += ap.Totals.NetBookValueCents
	}
	return r
}

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

func timeMonth(m int) time.Month { return time.Month(m) }
