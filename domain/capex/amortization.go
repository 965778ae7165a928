package capex

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/capexdb"
)

// The amortization schedule. A project amortizes when it
// has amortization_months of at least 1. Its capitalized amount of a month
// is exactly the CapEx amount the capitalization report shows for it in that
// month (a closed month's snapshot, with the policy and classification
// frozen then; an open month under the policy in force then, or before any
// policy by the project's current classification).

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
