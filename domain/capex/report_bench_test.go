package capex

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/timeentry"
	"tracker/store/capexdb"
)

// The Go side of the report at its largest grain without the database:
// 100 projects × 50 users × 8 activity types = 40,000 (project, user,
// activity type) lines, what a month of cmd/benchreport's seed gives
// whatever its entry count (the rollup's rows). Building the per-user report
// and encoding it, and rendering the CSV, are what grew with the lines.
// go test -run '^$' -bench 'Report|CSV' -benchmem ./domain/capex/

func benchLines() ([]capexdb.Line, CSVExtras) {
	var lines []capexdb.Line
	x := CSVExtras{ProjectTags: map[uuid.UUID][]capexdb.EntityTag{}, Departments: map[uuid.UUID]string{}, Spent: map[uuid.UUID]int64{}}
	users := make([]uuid.UUID, 50)
	for i := range users {
		users[i] = uuid.New()
		if i%3 == 0 {
			x.Departments[users[i]] = "Engineering"
		}
	}
	team := uuid.New()
	teamName := "Team 1"
	for p := range 100 {
		id := uuid.New()
		phase := []string{"Preliminary", "ApplicationDevelopment", "ApplicationDevelopment", "PostImplementation"}[p%4]
		cc := fmt.Sprintf("CC-%d", p%7)
		budget := int64(1000000 + p*1000)
		period := []string{"Monthly", "Quarterly", "Yearly", "Fixed"}[p%4]
		x.ProjectTags[id] = []capexdb.EntityTag{{EntityID: id, Key: "stream", Value: "core"}}
		x.Spent[id] = int64(p) * 123457
		for u, uid := range users {
			for a, act := range timeentry.ActivityTypes[:8] {
				m := int64(1000 + (p*31+u*7+a)%5000)
				lines = append(lines, capexdb.Line{ProjectID: id, ProjectKey: fmt.Sprintf("B%d", p+1),
					ProjectName: fmt.Sprintf("Bench project %d", p+1), DevelopmentPhase: &phase, CostCenterID: &cc,
					TeamID: &team, TeamName: &teamName, BudgetCents: &budget, BudgetPeriod: &period,
					ByUser: true, UserID: uid, DisplayName: fmt.Sprintf("Engineer %d", u+1), ByActivity: true,
					ActivityType: act, Minutes: m, AmountCents: m * 150, RateMinutes: m * 9000, Entries: 20})
			}
		}
	}
	return lines, x
}

func BenchmarkReportByUser(b *testing.B) {
	lines, _ := benchLines()
	q := Query{Period: PeriodOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)), GroupBy: GroupUser}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(lines, q, nil).AppendJSON(nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCSV(b *testing.B) {
	lines, x := benchLines()
	period := PeriodOf(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WriteCSV(period, lines, x); err != nil {
			b.Fatal(err)
		}
	}
}
