package capex

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"

	"tracker/store/capexdb"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenLines are fixed aggregate lines: a CapEx project with a budget and a
// rate change inside a row, an OpEx project whose name needs quoting, an
// employee without any rate.
func goldenLines() ([]capexdb.Line, CSVExtras) {
	p1 := uuid.MustParse("00000000-0000-7000-8000-000000000001")
	p2 := uuid.MustParse("00000000-0000-7000-8000-000000000002")
	ann := uuid.MustParse("00000000-0000-7000-8000-0000000000a1")
	bob := uuid.MustParse("00000000-0000-7000-8000-0000000000b1")
	team := uuid.MustParse("00000000-0000-7000-8000-0000000000c1")
	lines := []capexdb.Line{
		// Ann, Coding: 600 min at 100.00/h then 300 min at 120.00/h → 1000.00 + 600.00.
		{ProjectID: p1, ProjectKey: "CORE", ProjectName: "Core platform", DevelopmentPhase: ptr("ApplicationDevelopment"),
			CostCenterID: ptr("CC-100"), TeamID: &team, TeamName: ptr("Platform"), BudgetCents: ptr(int64(900000)),
			BudgetPeriod: ptr(BudgetQuarterly), UserID: ann, DisplayName: "Ann Lee", ActivityType: "Coding",
			Minutes: 900, AmountCents: 160000, RateMinutes: 600*10000 + 300*12000, Entries: 3},
		{ProjectID: p1, ProjectKey: "CORE", ProjectName: "Core platform", DevelopmentPhase: ptr("ApplicationDevelopment"),
			CostCenterID: ptr("CC-100"), TeamID: &team, TeamName: ptr("Platform"), BudgetCents: ptr(int64(900000)),
			BudgetPeriod: ptr(BudgetQuarterly), UserID: ann, DisplayName: "Ann Lee", ActivityType: "CodeReview",
			Minutes: 7, AmountCents: 1400, RateMinutes: 7 * 12000, Entries: 1},
		{ProjectID: p1, ProjectKey: "CORE", ProjectName: "Core platform", DevelopmentPhase: ptr("ApplicationDevelopment"),
			CostCenterID: ptr("CC-100"), TeamID: &team, TeamName: ptr("Platform"), BudgetCents: ptr(int64(900000)),
			BudgetPeriod: ptr(BudgetQuarterly), UserID: bob, DisplayName: `Bob "B" O'Neil`, ActivityType: "Testing",
			Minutes: 45, AmountCents: 0, RateMinutes: 0, Entries: 1, UnpricedEntries: 1},
		{ProjectID: p2, ProjectKey: "OPS", ProjectName: "Ops, support\nand upkeep", CapitalizationType: ptr("expensed"),
			DevelopmentPhase: ptr("ApplicationDevelopment"), UserID: ann, DisplayName: "Ann Lee", ActivityType: "Meeting",
			Minutes: 61, AmountCents: 12200, RateMinutes: 61 * 12000, Entries: 2},
	}
	x := CSVExtras{
		ProjectTags: map[uuid.UUID][]capexdb.EntityTag{p1: {{EntityID: p1, Key: "env", Value: "prod"}, {EntityID: p1, Key: "owner", Value: "a,b"}}},
		Departments: map[uuid.UUID]string{ann: "R&D"},
		Spent:       map[uuid.UUID]int64{p1: 250000},
	}
	return lines, x
}

func TestWriteCSVGolden(t *testing.T) {
	t.Parallel()
	lines, x := goldenLines()
	// Shuffled input: the order of the file must not depend on it.
	lines[0], lines[3] = lines[3], lines[0]
	got, err := WriteCSV(Period{Year: 2026, Month: 3}, lines, x)
	if err != nil {
		t.Fatal(err)
	}
	// The file parses back as RFC 4180 with the spec's header.
	recs := goldenCSV(t, "capitalization_2026-03.golden.csv", got)
	if len(recs) != 5 || len(recs[0]) != 17 || recs[0][0] != "Period" || recs[0][16] != "Utilization" {
		t.Fatalf("parsed back: %d records, header %v", len(recs), recs[0])
	}
	if recs[4][1] != "Ops, support\nand upkeep" {
		t.Fatalf("quoted project name did not round-trip: %q", recs[4][1])
	}
}

func TestWriteCSVEmpty(t *testing.T) {
	t.Parallel()
	got, err := WriteCSV(Period{Year: 2026, Month: 1}, nil, CSVExtras{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Period,Project,ProjectKey,Employee,Department,CostCenter,Hours,ActivityType,Phase,CapExOpEx,LoadedRate,Amount,Team,Tags,BudgetCents,SpentCents,Utilization\r\n"
	if string(got) != want {
		t.Fatalf("got %q", got)
	}
}

// goldenCSV compares got with testdata/name (rewriting it under -update) and
// returns it parsed back as RFC 4180.
func goldenCSV(t *testing.T, name string, got []byte) [][]string {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (go test -run Golden -update to create it): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("CSV differs from %s:\n got: %q\nwant: %q", path, got, want)
	}
	recs, err := csv.NewReader(bytes.NewReader(got)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
