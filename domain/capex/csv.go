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
	w := csv.NewWriter(&buf)
	w.UseCRLF = true
	if err := w.Write(CSVHeader); err != nil {
		return nil, err
	}
	for _, l := range rows {
		b := budgetOf(*l, x.Spent)
		if err := w.Write(SafeRow([]string{
			period.String(), l.ProjectName, l.ProjectKey, l.DisplayName, x.Departments[l.UserID],
			deref(l.CostCenterID), HoursOf(l.Minutes).String(), l.ActivityType, deref(l.DevelopmentPhase),
			Classify(l.CapitalizationType, l.DevelopmentPhase), loadedRate(*l), CentsAsDecimal(l.AmountCents).String(),
			deref(l.TeamName), tagsCell(x.ProjectTags[l.ProjectID]), intCell(b.BudgetCents), intCell(b.SpentCents),
			decCell(b.BudgetUtilizationPct),
		})); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// exportOrder sorts the lines by project key, employee and activity type
// (the row order of the CSV and XLSX exports), as pointers: a line is a
// large struct and a month grouped by user is tens of thousands of them.
// The order is total (project, user and activity type are a line's key),
// so an unstable sort gives the one order a stable sort would.
func exportOrder(lines []capexdb.Line) []*capexdb.Line {
	rows := make([]*capexdb.Line, len(lines))
	for i := range lines {
		rows[i] = &lines[i]
	}
	slices.SortFunc(rows, func(a, b *capexdb.Line) int {
		return cmp.Or(cmp.Compare(a.ProjectKey, b.ProjectKey), cmpID(a.ProjectID, b.ProjectID),
			cmp.Compare(a.DisplayName, b.DisplayName), cmpID(a.UserID, b.UserID),
			cmp.Compare(activityRank(a.ActivityType), activityRank(b.ActivityType)))
	})
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
