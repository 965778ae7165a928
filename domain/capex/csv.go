package capex

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"tracker/store/capexdb"
)

// CSVHeader is the spec's header, in order.
var CSVHeader = []string{"Period", "Project", "ProjectKey", "Employee", "Department", "CostCenter", "Hours",
	"ActivityType", "Phase", "CapExOpEx", "LoadedRate", "Amount", "Team", "Tags", "BudgetCents", "SpentCents", "Utilization"}

// CSVExtras are the columns the aggregate does not carry.
type CSVExtras struct {
	// ProjectTags are each project's tags, rendered "key:value" joined by ";".
	ProjectTags map[uuid.UUID][]capexdb.EntityTag
	// Departments are the users' "department" tags.
	Departments map[uuid.UUID]string
	// Spent is each project's budget spend (as in the report's budget fields).
	Spent map[uuid.UUID]int64
}

// WriteCSV renders one row per (project, employee, activity type), ordered
// by project key, employee and activity type, with RFC 4180 quoting and CRLF
// line ends; cells that a spreadsheet would read as a formula are escaped
// (SafeCell). Hours, LoadedRate and Amount have two decimals (currency units
// for money); LoadedRate is the minutes-weighted mean rate of the row's
// entries (an entry without a rate counts as 0; empty when none had one), so
// that Amount ≈ Hours × LoadedRate even across a mid-month change; budget columns
// are the project's budget for the period and are empty without a budget.
func WriteCSV(period Period, lines []capexdb.Line, x CSVExtras) ([]byte, error) {
	rows := exportOrder(lines)
	var buf bytes.Buffer
	buf.Grow(len(rows) * 160)
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(CSVHeader); err != nil {
		return nil, err
	}
	// A project's columns and a user's department are the same on each of
	// their rows: rendered (and escaped) once, not once per row.
	ps := SafeCell(period.String())
	projects := map[uuid.UUID]*[17]string{}
	departments := map[uuid.UUID]string{}
	row := make([]string, len(CSVHeader))
	for _, l := range rows {
		pc := projects[l.ProjectID]
		if pc == nil {
			b := budgetOf(*l, x.Spent)
			pc = &[17]string{1: l.ProjectName, 2: l.ProjectKey, 5: deref(l.CostCenterID), 8: deref(l.DevelopmentPhase),
				12: deref(l.TeamName),
				13: tagsCell(x.ProjectTags[l.ProjectID]), 14: intCell(b.BudgetCents), 15: intCell(b.SpentCents),
				16: decCell(b.BudgetUtilizationPct)}
			SafeRow(pc[:])
			projects[l.ProjectID] = pc
		}
		dept, ok := departments[l.UserID]
		if !ok {
			dept = SafeCell(x.Departments[l.UserID])
			departments[l.UserID] = dept
		}
		copy(row, pc[:])
		row[0], row[3], row[4] = ps, SafeCell(l.DisplayName), dept
		row[9] = classOf(l) // a policy may split a project's month
		row[6], row[7] = HoursOf(l.Minutes).String(), SafeCell(l.ActivityType)
		row[10], row[11] = SafeCell(loadedRate(*l)), SafeCell(CentsAsDecimal(l.AmountCents).String())
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// exportOrder sorts the lines by project key, employee and activity type
// (the row order of the CSV and XLSX exports), as pointers: a line is a
// large struct and a month grouped by user is tens of thousands of them.
// The order is total (project, user and activity type are a line's key;
// a policy's split adds the class),
// so an unstable sort gives the one order a stable sort would. Projects
// (by key, then id) and users (by name, then id) are ranked once, so the
// sort of the lines compares three integers.
func exportOrder(lines []capexdb.Line) []*capexdb.Line {
	type ranked struct {
		l                   *capexdb.Line
		project, user, kind int
	}
	type person struct {
		id   uuid.UUID
		name string
	}
	projects, users := map[uuid.UUID]int{}, map[person]int{}
	var pl []*capexdb.Line
	var ul []person
	for i := range lines {
		l := &lines[i]
		if _, ok := projects[l.ProjectID]; !ok {
			projects[l.ProjectID] = 0
			pl = append(pl, l)
		}
		u := person{l.UserID, l.DisplayName}
		if _, ok := users[u]; !ok {
			users[u] = 0
			ul = append(ul, u)
		}
	}
	slices.SortFunc(pl, func(a, b *capexdb.Line) int {
		return cmp.Or(cmp.Compare(a.ProjectKey, b.ProjectKey), cmpID(a.ProjectID, b.ProjectID))
	})
	for i, l := range pl {
		projects[l.ProjectID] = i
	}
	slices.SortFunc(ul, func(a, b person) int { return cmp.Or(cmp.Compare(a.name, b.name), cmpID(a.id, b.id)) })
	for i, u := range ul {
		users[u] = i
	}
	rs := make([]ranked, len(lines))
	for i := range lines {
		l := &lines[i]
		rs[i] = ranked{l, projects[l.ProjectID], users[person{l.UserID, l.DisplayName}], activityRank(l.ActivityType)}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.user, b.user), cmp.Compare(a.kind, b.kind),
			cmp.Compare(b.l.Class, a.l.Class)) // a split project's OpEx part (before its date) first
	})
	rows := make([]*capexdb.Line, len(rs))
	for i, r := range rs {
		rows[i] = r.l
	}
	return rows
}

func loadedRate(l capexdb.Line) string {
	c, ok := loadedRateCents(l)
	if !ok {
		return ""
	}
	return CentsAsDecimal(c).String()
}

// loadedRateCents is the minutes-weighted mean rate of the line's entries;
// ok is false when none had a rate.
func loadedRateCents(l capexdb.Line) (int64, bool) {
	if l.Entries == l.UnpricedEntries || l.Minutes == 0 {
		return 0, false
	}
	return roundDiv(l.RateMinutes, l.Minutes), true
}

func tagsCell(tags []capexdb.EntityTag) string {
	parts := make([]string, 0, len(tags))
	for _, t := range tags {
		parts = append(parts, t.Key+":"+t.Value)
	}
	return strings.Join(parts, ";")
}

func intCell(v *int64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatInt(*v, 10)
}

func decCell(v *Decimal2) string {
	if v == nil {
		return ""
	}
	return v.String()
}
