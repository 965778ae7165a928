// Package capex holds the capitalization report: approved time priced at
// the labor rate in effect on each entry's date, classified CapEx or OpEx by
// the project's development phase, compared with the project's budget, as
// JSON or as the finance CSV; and the stored monthly CSV exports.
//
// Reading the report, its CSV and the stored exports requires the Admin role
// in the org (it is payroll-derived financial data).
package capex

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// Service runs the report and export use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// MinRole is the role that reads reports and exports.
const MinRole = domain.RoleAdmin

// filterFor authorizes the caller on the query's org (default: the session
// org) and turns the query into the store's filter. An API key limited to
// projects sees only those projects.
func (s *Service) filterFor(ctx context.Context, q store.Querier, p domain.Principal, qr *Query) (capexdb.Filter, error) {
	if qr.OrgID == uuid.Nil {
		qr.OrgID = p.OrgID
	}
	if _, err := domain.OrgAccess(ctx, q, p, qr.OrgID, MinRole, "organization"); err != nil {
		return capexdb.Filter{}, err
	}
	f := filterOf(*qr)
	if len(p.ProjectIDs) > 0 {
		f.Restricted, f.Projects = true, p.ProjectIDs
	}
	return f, nil
}

func filterOf(qr Query) capexdb.Filter {
	return capexdb.Filter{
		OrgID: qr.OrgID, From: qr.Period.Start(), To: qr.Period.End(), UserID: qr.UserID, TeamID: qr.TeamID,
		CostCenterID: qr.CostCenterID, ActivityType: qr.ActivityType, Tags: qr.Tags,
	}
}

// source is where an open month's numbers come from: the rollup (what
// the service reads) or the straight computation over the entries (what
// the tests compare it with).
type source struct {
	aggregate func(context.Context, store.Querier, capexdb.Filter, capexdb.Grouping) ([]capexdb.Line, error)
	spent     func(context.Context, store.Querier, uuid.UUID, []uuid.UUID, time.Time, time.Time) (map[uuid.UUID]int64, error)
}

var (
	rollup = source{capexdb.Aggregate, capexdb.Spent}
	direct = source{capexdb.AggregateDirect, capexdb.SpentDirect}
)

// Report computes the report of qr.
func (s *Service) Report(ctx context.Context, p domain.Principal, qr Query) (Report, error) {
	q := s.DB.Q()
	f, err := s.filterFor(ctx, q, p, &qr)
	if err != nil {
		return Report{}, err
	}
	if cl, ok, err := closedOf(ctx, q, qr.OrgID, qr.Period); err != nil || ok {
		if err != nil {
			return Report{}, err
		}
		return cl.report(ctx, q, qr, f)
	}
	pol, lines, err := inForce(ctx, q, rollup.aggregate, f, GroupingFor(qr), qr.OrgID, qr.Period, s.now())
	if err != nil {
		return Report{}, err
	}
	return rollup.reportOf(ctx, q, qr, lines, pol)
}

// report computes the report of an open month under pol.
func (src source) report(ctx context.Context, q store.Querier, qr Query, f capexdb.Filter, pol *PolicyRef) (Report, error) {
	lines, err := classified(ctx, q, src.aggregate, f, GroupingFor(qr), pol)
	if err != nil {
		return Report{}, err
	}
	return src.reportOf(ctx, q, qr, lines, pol)
}

// reportOf builds the report of an open month from its lines classified
// under pol.
func (src source) reportOf(ctx context.Context, q store.Querier, qr Query, lines []capexdb.Line, pol *PolicyRef) (Report, error) {
	var spent map[uuid.UUID]int64
	if qr.IncludeBudget {
		var err error
		if spent, err = src.spentOf(ctx, q, qr, lines); err != nil {
			return Report{}, err
		}
	}
	return build(lines, qr, spent, pol), nil
}

// ExportCSV renders the report of qr as the finance CSV.
func (s *Service) ExportCSV(ctx context.Context, p domain.Principal, qr Query) ([]byte, error) {
	q := s.DB.Q()
	f, err := s.filterFor(ctx, q, p, &qr)
	if err != nil {
		return nil, err
	}
	return renderCSV(ctx, q, qr, f, s.now())
}

// renderCSV aggregates f and renders its CSV with tags, departments and
// budget spend; a closed month is rendered from its snapshot.
func renderCSV(ctx context.Context, q store.Querier, qr Query, f capexdb.Filter, now time.Time) ([]byte, error) {
	if cl, ok, err := closedOf(ctx, q, qr.OrgID, qr.Period); err != nil || ok {
		if err != nil {
			return nil, err
		}
		return cl.csv(ctx, q, qr, f)
	}
	pol, err := policyInForce(ctx, q, qr.OrgID, qr.Period, now)
	if err != nil {
		return nil, err
	}
	return rollup.csv(ctx, q, qr, f, pol)
}

// csv renders the CSV of an open month under pol.
func (src source) csv(ctx context.Context, q store.Querier, qr Query, f capexdb.Filter, pol *PolicyRef) ([]byte, error) {
	lines, err := classified(ctx, q, src.aggregate, f, capexdb.Grouping{Full: true}, pol)
	if err != nil {
		return nil, err
	}
	x, err := src.csvExtras(ctx, q, qr, lines)
	if err != nil {
		return nil, err
	}
	return WriteCSV(qr.Period, lines, x)
}

// csvExtras reads the CSV's columns that the aggregate lines do not carry.
func (src source) csvExtras(ctx context.Context, q store.Querier, qr Query, lines []capexdb.Line) (CSVExtras, error) {
	x := CSVExtras{ProjectTags: map[uuid.UUID][]capexdb.EntityTag{}, Departments: map[uuid.UUID]string{}}
	var err error
	if x.Spent, err = src.spentOf(ctx, q, qr, lines); err != nil {
		return x, err
	}
	projects, users := idsOf(lines)
	tags, err := capexdb.TagsOf(ctx, q, qr.OrgID, "project", projects)
	if err != nil {
		return x, err
	}
	for _, t := range tags {
		x.ProjectTags[t.EntityID] = append(x.ProjectTags[t.EntityID], t)
	}
	utags, err := capexdb.TagsOf(ctx, q, qr.OrgID, "user", users)
	if err != nil {
		return x, err
	}
	for _, t := range utags {
		if t.Key == DepartmentTag {
			x.Departments[t.EntityID] = t.Value
		}
	}
	return x, nil
}

// DepartmentTag is the user tag whose value fills the CSV's Department.
const DepartmentTag = "department"

func (src source) spentOf(ctx context.Context, q store.Querier, qr Query, lines []capexdb.Line) (map[uuid.UUID]int64, error) {
	var budgeted []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, l := range lines {
		if l.BudgetCents != nil && !seen[l.ProjectID] {
			seen[l.ProjectID] = true
			budgeted = append(budgeted, l.ProjectID)
		}
	}
	if len(budgeted) == 0 {
		return map[uuid.UUID]int64{}, nil
	}
	return src.spent(ctx, q, qr.OrgID, budgeted, qr.Period.Start(), qr.Period.End())
}

func idsOf(lines []capexdb.Line) (projects, users []uuid.UUID) {
	ps, us := map[uuid.UUID]bool{}, map[uuid.UUID]bool{}
	projects, users = []uuid.UUID{}, []uuid.UUID{}
	for _, l := range lines {
		if !ps[l.ProjectID] {
			ps[l.ProjectID] = true
			projects = append(projects, l.ProjectID)
		}
		if !us[l.UserID] {
			us[l.UserID] = true
			users = append(users, l.UserID)
		}
	}
	return projects, users
}
