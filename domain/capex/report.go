package capex

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/google/uuid"

	"tracker/domain/timeentry"
	"tracker/store/capexdb"
)

// Report is the capitalization report of one period. Exactly one of
// Projects, Teams and Users is set, by the grouping mode.
type Report struct {
	Period string `json:"period"`
	Totals
	Projects *[]ProjectReport `json:"projects,omitempty"`
	Teams    *[]TeamReport    `json:"teams,omitempty"`
	Users    *[]UserReport    `json:"users,omitempty"`
	// Policy names the capitalization policy in force for the period (for
	// a closed month, the one its snapshot recorded); absent when none is.
	Policy *PolicyRef `json:"policy,omitempty"`
	// Close is set when the period is closed: the report comes from the
	// snapshot taken then.
	Close *CloseInfo `json:"close,omitempty"`
}

// Totals sum the whole report; entries without a labor rate in effect on
// their date are priced at 0 and counted in UnpricedEntries.
type Totals struct {
	TotalHours       Decimal2 `json:"total_hours"`
	TotalAmountCents int64    `json:"total_amount_cents"`
	CapExAmountCents int64    `json:"capex_amount_cents"`
	OpExAmountCents  int64    `json:"opex_amount_cents"`
	UnpricedEntries  int64    `json:"unpriced_entries"`
}

// ProjectReport is one project of the report.
type ProjectReport struct {
	ProjectID          uuid.UUID `json:"project_id"`
	ProjectKey         string    `json:"project_key"`
	ProjectName        string    `json:"project_name"`
	CapitalizationType *string   `json:"capitalization_type"`
	DevelopmentPhase   *string   `json:"development_phase"`
	CostCenterID       *string   `json:"cost_center_id"`
	CapExOpEx          string    `json:"capex_opex"`
	TotalHours         Decimal2  `json:"total_hours"`
	TotalAmountCents   int64     `json:"total_amount_cents"`
	UnpricedEntries    int64     `json:"unpriced_entries"`
	// CapExAmountCents and OpExAmountCents split the project's amount
	// when a policy is in force (a framework may capitalize part of a
	// month); absent otherwise.
	CapExAmountCents *int64         `json:"capex_amount_cents,omitempty"`
	OpExAmountCents  *int64         `json:"opex_amount_cents,omitempty"`
	Breakdown        []ActivityLine `json:"breakdown"`
	Users            []UserLine     `json:"users,omitempty"`
	// BudgetFields is nil unless include_budget: its fields are then absent.
	*BudgetFields
}

// ActivityLine is one activity type of a project.
type ActivityLine struct {
	ActivityType string   `json:"activity_type"`
	Hours        Decimal2 `json:"hours"`
	AmountCents  int64    `json:"amount_cents"`
}

// UserLine is one user of a project (include_users).
type UserLine struct {
	UserID           uuid.UUID `json:"user_id"`
	DisplayName      string    `json:"display_name"`
	TotalHours       Decimal2  `json:"total_hours"`
	TotalAmountCents int64     `json:"total_amount_cents"`
}

// BudgetFields compare a project's budget for the period with its spend.
// BudgetCents is the budget of the period (see PeriodBudgetCents); all but
// BudgetPeriod are null when the project has no budget.
type BudgetFields struct {
	BudgetCents          *int64    `json:"budget_cents"`
	BudgetPeriod         *string   `json:"budget_period"`
	SpentCents           *int64    `json:"spent_cents"`
	BudgetRemainingCents *int64    `json:"budget_remaining_cents"`
	BudgetUtilizationPct *Decimal2 `json:"budget_utilization_pct"`
}

// TeamReport groups the projects of one team (the project's team; a team
// with a null id and name holds the projects without one).
type TeamReport struct {
	TeamID           *uuid.UUID      `json:"team_id"`
	TeamName         *string         `json:"team_name"`
	TotalHours       Decimal2        `json:"total_hours"`
	TotalAmountCents int64           `json:"total_amount_cents"`
	Projects         []ProjectReport `json:"projects"`
}

// UserReport groups one user's time by project.
type UserReport struct {
	UserID           uuid.UUID       `json:"user_id"`
	DisplayName      string          `json:"display_name"`
	TotalHours       Decimal2        `json:"total_hours"`
	TotalAmountCents int64           `json:"total_amount_cents"`
	Projects         []ProjectReport `json:"projects"`
}

// GroupingFor is the aggregate's grain that q needs: per-user reports need
// every (project, user, activity type); the others need (project, activity
// type) lines, and (project, user) lines only with include_users.
func GroupingFor(q Query) capexdb.Grouping {
	return capexdb.Grouping{Full: q.GroupBy == GroupUser, WithUsers: q.IncludeUsers}
}

// Build assembles the report from the aggregate lines of GroupingFor(q);
// spent is the budget spend per project (used only with IncludeBudget).
// The lines are grouped as pointers: a line is a struct of about 200 bytes
// and a month grouped by user holds tens of thousands of them, so copying
// them into every group cost more than the rest of the report.
func Build(lines []capexdb.Line, q Query, spent map[uuid.UUID]int64) Report {
	return build(lines, q, spent, nil)
}

// build is Build under pol (nil: no policy in force).
func build(lines []capexdb.Line, q Query, spent map[uuid.UUID]int64, pol *PolicyRef) Report {
	all := refs(lines)
	r := Report{Period: q.Period.String(), Totals: totalsOfRefs(all), Policy: pol.public()}
	split := pol != nil
	switch q.GroupBy {
	case GroupTeam:
		teams := []TeamReport{}
		for _, g := range groupBy(all, func(l *capexdb.Line) uuid.UUID { return ptrID(l.TeamID) }) {
			minutes, amount := sums(byActivity(g))
			teams = append(teams, TeamReport{TeamID: g[0].TeamID, TeamName: g[0].TeamName, TotalHours: HoursOf(minutes),
				TotalAmountCents: amount, Projects: buildProjects(g, q, spent, split)})
		}
		slices.SortStableFunc(teams, func(a, b TeamReport) int {
			if (a.TeamName == nil) != (b.TeamName == nil) {
				return boolCmp(a.TeamName == nil, b.TeamName == nil) // teamless last
			}
			return cmp.Or(cmp.Compare(deref(a.TeamName), deref(b.TeamName)), cmpID(ptrID(a.TeamID), ptrID(b.TeamID)))
		})
		r.Teams = &teams
	case GroupUser:
		users := []UserReport{}
		for _, g := range groupBy(all, func(l *capexdb.Line) uuid.UUID { return l.UserID }) {
			minutes, amount := sums(byActivity(g))
			users = append(users, UserReport{UserID: g[0].UserID, DisplayName: g[0].DisplayName, TotalHours: HoursOf(minutes),
				TotalAmountCents: amount, Projects: buildProjects(g, q, spent, split)})
		}
		slices.SortStableFunc(users, func(a, b UserReport) int {
			return cmp.Or(cmp.Compare(a.DisplayName, b.DisplayName), cmpID(a.UserID, b.UserID))
		})
		r.Users = &users
	default:
		projects := buildProjects(all, q, spent, split)
		r.Projects = &projects
	}
	return r
}

// refs points at each line, in order.
func refs(lines []capexdb.Line) []*capexdb.Line {
	out := make([]*capexdb.Line, len(lines))
	for i := range lines {
		out[i] = &lines[i]
	}
	return out
}

// byActivity keeps the lines that split the entries by activity type: in
// every grain they cover each entry exactly once, so totals come from them.
func byActivity(lines []*capexdb.Line) []*capexdb.Line {
	out := make([]*capexdb.Line, 0, len(lines))
	for _, l := range lines {
		if l.ByActivity {
			out = append(out, l)
		}
	}
	return out
}

func byUser(lines []*capexdb.Line) []*capexdb.Line {
	out := make([]*capexdb.Line, 0, len(lines))
	for _, l := range lines {
		if l.ByUser {
			out = append(out, l)
		}
	}
	return out
}

func totalsOf(lines []capexdb.Line) Totals { return totalsOfRefs(refs(lines)) }

func totalsOfRefs(lines []*capexdb.Line) Totals {
	var t Totals
	var minutes int64
	for _, l := range lines {
		if !l.ByActivity {
			continue
		}
		minutes += l.Minutes
		t.TotalAmountCents += l.AmountCents
		t.UnpricedEntries += l.UnpricedEntries
		if classOf(l) == CapEx {
			t.CapExAmountCents += l.AmountCents
		} else {
			t.OpExAmountCents += l.AmountCents
		}
	}
	t.TotalHours = HoursOf(minutes)
	return t
}

// buildProjects sums lines into one report per project, sorted by key;
// split adds each project's CapEx and OpEx amounts.
func buildProjects(lines []*capexdb.Line, q Query, spent map[uuid.UUID]int64, split bool) []ProjectReport {
	out := []ProjectReport{}
	for _, g := range groupBy(lines, func(l *capexdb.Line) uuid.UUID { return l.ProjectID }) {
		l0 := g[0]
		base := byActivity(g)
		minutes, amount := sums(base)
		p := ProjectReport{
			ProjectID: l0.ProjectID, ProjectKey: l0.ProjectKey, ProjectName: l0.ProjectName,
			CapitalizationType: l0.CapitalizationType, DevelopmentPhase: l0.DevelopmentPhase, CostCenterID: l0.CostCenterID,
			CapExOpEx: classOf(l0), TotalHours: HoursOf(minutes),
			TotalAmountCents: amount, Breakdown: []ActivityLine{},
		}
		if split {
			var capex, opex int64
			for _, l := range base {
				if c := classOf(l); c == CapEx {
					capex += l.AmountCents
				} else {
					opex += l.AmountCents
				}
				if classOf(l) != p.CapExOpEx {
					p.CapExOpEx = Mixed
				}
			}
			p.CapExAmountCents, p.OpExAmountCents = &capex, &opex
		}
		for _, a := range groupBy(base, func(l *capexdb.Line) string { return l.ActivityType }) {
			m, c := sums(a)
			p.Breakdown = append(p.Breakdown, ActivityLine{ActivityType: a[0].ActivityType, Hours: HoursOf(m), AmountCents: c})
		}
		slices.SortStableFunc(p.Breakdown, func(a, b ActivityLine) int {
			return cmp.Compare(activityRank(a.ActivityType), activityRank(b.ActivityType))
		})
		for _, l := range base {
			p.UnpricedEntries += l.UnpricedEntries
		}
		if q.IncludeUsers {
			for _, u := range groupBy(byUser(g), func(l *capexdb.Line) uuid.UUID { return l.UserID }) {
				m, c := sums(u)
				p.Users = append(p.Users, UserLine{UserID: u[0].UserID, DisplayName: u[0].DisplayName, TotalHours: HoursOf(m), TotalAmountCents: c})
			}
			slices.SortStableFunc(p.Users, func(a, b UserLine) int {
				return cmp.Or(cmp.Compare(a.DisplayName, b.DisplayName), cmpID(a.UserID, b.UserID))
			})
		}
		if q.IncludeBudget {
			p.BudgetFields = budgetOf(*l0, spent)
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b ProjectReport) int {
		return cmp.Or(cmp.Compare(a.ProjectKey, b.ProjectKey), cmpID(a.ProjectID, b.ProjectID))
	})
	return out
}

// budgetOf compares a project's budget for the period with its spend.
func budgetOf(l capexdb.Line, spent map[uuid.UUID]int64) *BudgetFields {
	bf := &BudgetFields{BudgetPeriod: l.BudgetPeriod}
	if l.BudgetCents == nil {
		return bf
	}
	budget := PeriodBudgetCents(*l.BudgetCents, l.BudgetPeriod)
	s := spent[l.ProjectID]
	remaining := budget - s
	bf.BudgetCents, bf.SpentCents, bf.BudgetRemainingCents = &budget, &s, &remaining
	bf.BudgetUtilizationPct = UtilizationPct(s, budget)
	return bf
}

// groupBy splits lines by key, keeping first-seen order.
func groupBy[K comparable](lines []*capexdb.Line, key func(*capexdb.Line) K) [][]*capexdb.Line {
	idx := map[K]int{}
	var out [][]*capexdb.Line
	for _, l := range lines {
		k := key(l)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], l)
	}
	return out
}

func sums(lines []*capexdb.Line) (minutes, amount int64) {
	for _, l := range lines {
		minutes += l.Minutes
		amount += l.AmountCents
	}
	return minutes, amount
}

func activityRank(a string) int {
	if i := slices.Index(timeentry.ActivityTypes, a); i >= 0 {
		return i
	}
	return len(timeentry.ActivityTypes)
}

// cmpID orders ids as their strings would, without formatting them.
func cmpID(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) }

func ptrID(id *uuid.UUID) uuid.UUID {
	if id == nil {
		return uuid.Nil
	}
	return *id
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
