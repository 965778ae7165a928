package capex

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/store/capexdb"
)

func sp(s string) *string { return &s }

// TestBuildAmortization: a CapEx project placed in service in February
// amortizes its January and February over 2 months; an OpEx-classified
// project that capitalized in a month closed as CapEx is still listed; an
// OpEx project whose only amounts are zero or after the range is left out.
// The report's months and totals sum the projects.
func TestBuildAmortization(t *testing.T) {
	a, b, c, d := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	placed := time.Date(2026, 2, 20, 0, 0, 0, 0, time.UTC)
	projects := []capexdb.AmortProject{
		{ID: a, Key: "A", Name: "Alpha", DevelopmentPhase: sp(PhaseApplicationDevelopment), AmortizationMonths: 2, PlacedInService: &placed},
		{ID: b, Key: "B", Name: "Beta", DevelopmentPhase: sp(PhasePreliminary), AmortizationMonths: 4},
		{ID: c, Key: "C", Name: "Gamma", AmortizationMonths: 3},
		{ID: d, Key: "D", Name: "Delta", AmortizationMonths: 3},
	}
	caps := map[uuid.UUID]map[int]int64{
		a: {mi("2026-01"): 600, mi("2026-02"): 400},
		b: {mi("2026-03"): 300},
		c: {mi("2026-01"): 0, mi("2026-05"): 900},
	}
	aq := AmortQuery{From: per("2026-02"), To: per("2026-04")}
	r := BuildAmortization(aq, projects, caps)
	if r.From != "2026-02" || r.To != "2026-04" {
		t.Fatalf("range %s..%s", r.From, r.To)
	}
	if len(r.Projects) != 2 || r.Projects[0].ProjectKey != "A" || r.Projects[1].ProjectKey != "B" {
		t.Fatalf("projects %+v, want A and B", r.Projects)
	}
	pa := r.Projects[0]
	if pa.PlacedInService == nil || *pa.PlacedInService != "2026-02-20" || pa.ProjectName != "Alpha" || pa.AmortizationMonths != 2 {
		t.Fatalf("A %+v", pa)
	}
	if pa.OpeningNetBookValueCents != 600 || pa.OpeningAccumulatedAmortizationCents != 0 {
		t.Fatalf("A opening %d/%d, want NBV 600", pa.OpeningNetBookValueCents, pa.OpeningAccumulatedAmortizationCents)
	}
	// 1000 in service from March: 500 in March and April.
	if want := (AmortTotals{CapitalizedCents: 400, AmortizationCents: 1000, AccumulatedAmortizationCents: 1000}); pa.Totals != want {
		t.Fatalf("A totals %+v, want %+v", pa.Totals, want)
	}
	pb := r.Projects[1]
	if pb.PlacedInService != nil {
		t.Fatalf("B placed %v", *pb.PlacedInService)
	}
	if want := (AmortTotals{CapitalizedCents: 300, NetBookValueCents: 300}); pb.Totals != want {
		t.Fatalf("B totals %+v, want %+v", pb.Totals, want)
	}
	want := []AmortMonth{
		{Period: "2026-02", CapitalizedCents: 400, ConstructionInProgressCents: 1000, NetBookValueCents: 1000},
		{Period: "2026-03", InService: true, CapitalizedCents: 300, AmortizationCents: 500, AccumulatedAmortizationCents: 500,
			ConstructionInProgressCents: 300, NetBookValueCents: 800},
		{Period: "2026-04", InService: true, AmortizationCents: 500, AccumulatedAmortizationCents: 1000,
			ConstructionInProgressCents: 300, NetBookValueCents: 300},
	}
	if len(r.Months) != len(want) {
		t.Fatalf("%d months, want %d", len(r.Months), len(want))
	}
	for i, w := range want {
		if r.Months[i] != w {
			t.Errorf("month %d = %+v, want %+v", i, r.Months[i], w)
		}
	}
	if want := (AmortTotals{CapitalizedCents: 700, AmortizationCents: 1000, AccumulatedAmortizationCents: 1000, NetBookValueCents: 300}); r.Totals != want {
		t.Fatalf("totals %+v, want %+v", r.Totals, want)
	}

	// The last month of the range counts: C's 900 in May lists it.
	r = BuildAmortization(AmortQuery{From: per("2026-05"), To: per("2026-05")}, projects[2:3], caps)
	if len(r.Projects) != 1 || r.Projects[0].Totals.CapitalizedCents != 900 {
		t.Fatalf("C up to May: %+v", r.Projects)
	}
}

// TestWriteAmortCSV renders the rows by project and month and a Total row
// whose construction in progress is the last month's.
func TestWriteAmortCSV(t *testing.T) {
	r := AmortReport{
		Projects: []AmortProject{{ProjectKey: "A", ProjectName: "=Alpha", AmortizationMonths: 2, PlacedInService: sp("2026-02-20"),
			Months: []AmortMonth{
				{Period: "2026-02", CapitalizedCents: 400, ConstructionInProgressCents: 1000, NetBookValueCents: 1000},
				{Period: "2026-03", InService: true, AmortizationCents: 500, AccumulatedAmortizationCents: 500, NetBookValueCents: 500},
			}}},
		Totals: AmortTotals{CapitalizedCents: 400, AmortizationCents: 500, AccumulatedAmortizationCents: 500, NetBookValueCents: 500},
		Months: []AmortMonth{{ConstructionInProgressCents: 1000}, {ConstructionInProgressCents: 7}},
	}
	got, err := WriteAmortCSV(r)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"Period,ProjectKey,Project,AmortizationMonths,PlacedInService,InService,Capitalized,AmortizationExpense,AccumulatedAmortization,ConstructionInProgress,NetBookValue",
		"2026-02,A,'=Alpha,2,2026-02-20,false,4.00,0.00,0.00,10.00,10.00",
		"2026-03,A,'=Alpha,2,2026-02-20,true,0.00,5.00,5.00,0.00,5.00",
		"Total,,,,,,4.00,5.00,5.00,0.07,5.00",
		"",
	}, "\r\n")
	if string(got) != want {
		t.Fatalf("CSV:\n%q\nwant\n%q", got, want)
	}
	empty, err := WriteAmortCSV(AmortReport{})
	if err != nil || !strings.HasSuffix(string(empty), "\r\nTotal,,,,,,0.00,0.00,0.00,0.00,0.00\r\n") {
		t.Fatalf("empty CSV %q, %v", empty, err)
	}
}

// TestIsPlainNumber: an optional minus, digits, and a fraction only with
// digits on both sides of one dot.
func TestIsPlainNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "9": true, "-12": true, "1.5": true, "-0.25": true, "10.09": true,
		"": false, "-": false, "/": false, ":": false, "1.": false, ".5": false, "-.5": false, "1.2.3": false, "1e3": false, "--1": false,
	} {
		if got := isPlainNumber(s); got != want {
			t.Errorf("isPlainNumber(%q) = %v, want %v", s, got, want)
		}
	}
}
