package capex_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store/storetest"
)

// TestOpenMonthExports renders an open month's CSV and XLSX live: the
// budget spend of a budgeted project, the project's tags, the users'
// departments (only the "department" tag), and the same rows typed in the
// workbook with its column widths.
func TestOpenMonthExports(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	budget := int64(50000)
	o := newOrg(t, db, testfactory.ProjectOpts{Key: "CAP", Name: "Capital", DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment),
		CostCenterID: testfactory.Ptr("CC-7"), BudgetCents: &budget, BudgetPeriod: testfactory.Ptr("Monthly")})
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	o.entry(o.ann, "2026-03-02", 90, "Coding", "")
	o.entry(o.owner, "2026-03-03", 30, "Testing", "")
	testfactory.Tag(t, db, o.id, testfactory.TagOpts{EntityType: "project", EntityID: o.ticket.ProjectID, Key: "stream", Value: "core"})
	testfactory.Tag(t, db, o.id, testfactory.TagOpts{EntityType: "user", EntityID: o.ann, Key: capex.DepartmentTag, Value: "Eng"})
	testfactory.Tag(t, db, o.id, testfactory.TagOpts{EntityType: "user", EntityID: o.owner, Key: "site", Value: "Lyon"})
	now := time.Date(2026, 3, 20, 12, 0, 0, 0, time.UTC)
	svc := capex.New(db, domain.ClockFunc(func() time.Time { return now }))
	ctx := context.Background()
	qr, err := capex.ParseQuery(capex.RawQuery{Period: "2026-03"})
	if err != nil {
		t.Fatal(err)
	}

	// The report with include_budget: the month's spend of the project.
	withBudget, err := capex.ParseQuery(capex.RawQuery{Period: "2026-03", IncludeBudget: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := svc.Report(ctx, o.caller, withBudget)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Projects == nil || len(*rep.Projects) != 1 || (*rep.Projects)[0].BudgetFields == nil ||
		(*rep.Projects)[0].SpentCents == nil || *(*rep.Projects)[0].SpentCents != 9000 {
		t.Fatalf("March's report with its budget %+v", rep.Projects)
	}

	out, err := svc.ExportCSV(ctx, o.caller, qr)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"Period,Project,ProjectKey,Employee,Department,CostCenter,Hours,ActivityType,Phase,CapExOpEx,LoadedRate,Amount,Team,Tags,BudgetCents,SpentCents,Utilization",
		"2026-03,Capital,CAP,Ann,Eng,CC-7,1.50,Coding,ApplicationDevelopment,CapEx,60.00,90.00,,stream:core,50000,9000,18.00",
		"2026-03,Capital,CAP,Owner,,CC-7,0.50,Testing,ApplicationDevelopment,CapEx,,0.00,,stream:core,50000,9000,18.00",
	}, "\r\n") + "\r\n"
	if string(out) != want {
		t.Fatalf("March's CSV\n%s\nwant\n%s", out, want)
	}

	book, err := svc.ExportXLSX(ctx, o.caller, qr)
	if err != nil {
		t.Fatal(err)
	}
	f := capex.WantXLSXRows(t, book, "Capitalization",
		"Period,Project,ProjectKey,Employee,Department,CostCenter,Hours,ActivityType,Phase,CapExOpEx,LoadedRate,Amount,Team,Tags,Budget,Spent,Utilization",
		// The month is its first day's serial number; money in currency units.
		"46082,Capital,CAP,Ann,Eng,CC-7,1.5,Coding,ApplicationDevelopment,CapEx,60,90,,stream:core,500,90,18",
		"46082,Capital,CAP,Owner,,CC-7,0.5,Testing,ApplicationDevelopment,CapEx,,0,,stream:core,500,90,18",
		"Total,,,,,,2,,,,,90")
	// Team and the Owner's rate are blank cells, not empty text.
	for _, ref := range []string{"M2", "K3"} {
		if typ, err := f.GetCellType("Capitalization", ref); err != nil || typ != excelize.CellTypeUnset {
			t.Fatalf("%s has type %v, %v; want a blank cell", ref, typ, err)
		}
	}
	capex.CheckXLSXWidths(t, f, "Capitalization", map[string]float64{"A": 14, "B": 24, "C": 14, "D": 22, "M": 18, "N": 24, "Q": 14})
}
