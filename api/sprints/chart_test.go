package sprints_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/testfactory"
	"tracker/internal/svgchart/svgcharttest"
	"tracker/store/ticketdb"
)

// burndownWorld is a sprint of six days with five tickets done at
// different times (as TestBurndown), so the remaining line moves.
func burndownWorld(t *testing.T, w world, name string) string {
	t.Helper()
	today := time.Now().UTC().Truncate(24 * time.Hour)
	start := today.AddDate(0, 0, -3)
	day := func(n int, hour int) time.Time { return start.AddDate(0, 0, n).Add(time.Duration(hour) * time.Hour) }
	s := w.sprint(t, w.Project, name, start.Format("2006-01-02"), today.AddDate(0, 0, 2).Format("2006-01-02"))
	id := uuid.MustParse(sid(s))
	ticket := func(status string) ticketdb.Row {
		return testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{Status: status, SprintID: &id})
	}
	t1 := ticket("Done")
	testfactory.StatusChange(t, w.Env.DB, t1, testfactory.StatusChangeOpts{From: "Backlog", To: "Done", At: day(1, 12)})
	t2 := ticket("Done")
	testfactory.StatusChange(t, w.Env.DB, t2, testfactory.StatusChangeOpts{From: "Todo", To: "Done", At: day(3, 1)})
	ticket("Backlog")
	ticket("Backlog")
	t4 := ticket("InProgress")
	testfactory.StatusChange(t, w.Env.DB, t4, testfactory.StatusChangeOpts{From: "Backlog", To: "Done", At: day(0, 9)})
	testfactory.StatusChange(t, w.Env.DB, t4, testfactory.StatusChangeOpts{From: "Done", To: "InProgress", At: day(2, 9)})
	return sid(s)
}

// TestBurndownSVGPlotsTheJSONBurndown reads the chart back with
// encoding/xml: the scale comes from the value axis alone, and each point of
// the Remaining line is the JSON burndown's remaining_tickets of that day.
func TestBurndownSVGPlotsTheJSONBurndown(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := burndownWorld(t, w, "Sprint 7")
	var bd struct {
		Data []struct {
			Date             string `json:"date"`
			TotalTickets     int    `json:"total_tickets"`
			RemainingTickets int    `json:"remaining_tickets"`
		} `json:"data"`
	}
	w.Env.Do("GET", "/api/v1/sprints/"+id+"/burndown", w.Viewer.Token, nil).Expect(t, 200).Decode(t, &bd)
	res := w.Env.Do("GET", "/api/v1/sprints/"+id+"/burndown.svg", w.Viewer.Token, nil).Expect(t, 200)
	c, sc := svgcharttest.Served(t, res.Header, res.Body)
	pts, err := c.Points("Remaining")
	if err != nil {
		t.Fatal(err)
	}
	ideal, err := c.Points("Ideal")
	if err != nil {
		t.Fatal(err)
	}
	if len(bd.Data) != 6 || len(pts) != len(bd.Data) || len(ideal) != len(bd.Data) {
		t.Fatalf("%d days, %d points, %d ideal points", len(bd.Data), len(pts), len(ideal))
	}
	moved := false
	for i, d := range bd.Data {
		if got := sc.Value(pts[i][1]); math.Abs(got-float64(d.RemainingTickets)) > 0.01 {
			t.Errorf("day %s: plotted %v remaining, JSON says %d", d.Date, got, d.RemainingTickets)
		}
		if d.RemainingTickets != bd.Data[0].RemainingTickets {
			moved = true
		}
		if i > 0 && pts[i][0] <= pts[i-1][0] {
			t.Errorf("days not left to right: %v", pts)
		}
	}
	if !moved {
		t.Errorf("the fixture's burndown is flat; the test proves little: %+v", bd.Data)
	}
	if got, want := sc.Value(ideal[0][1]), float64(bd.Data[0].TotalTickets); math.Abs(got-want) > 0.01 {
		t.Errorf("ideal starts at %v, want the %v tickets", got, want)
	}
	if got := sc.Value(ideal[len(ideal)-1][1]); math.Abs(got) > 0.01 {
		t.Errorf("ideal ends at %v, want 0", got)
	}
	if c.Title != "Burndown: Sprint 7" {
		t.Errorf("title %q", c.Title)
	}
	if l := c.Legend(); strings.Join(l, ",") != "Remaining,Ideal" {
		t.Errorf("legend %v", l)
	}
	for _, want := range []string{"Tickets remaining", "Day (UTC)", bd.Data[0].Date[5:]} {
		if !strings.Contains(strings.Join(c.Texts, "\n"), want) {
			t.Errorf("no text %q in %q", want, c.Texts)
		}
	}

	t.Run("same access as the JSON burndown", func(t *testing.T) {
		w.Env.Do("GET", "/api/v1/sprints/"+id+"/burndown.svg", w.UnassignedReporter.Token, nil).Expect(t, 403)
		w.Env.Do("GET", "/api/v1/sprints/"+id+"/burndown.svg", w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/sprints/"+uuid.NewString()+"/burndown.svg", w.Member.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/sprints/"+id+"/burndown.svg", "", nil).Expect(t, 401)
	})
}

// TestBurndownSVGEscapesTheSprintName: a sprint name is user input; the
// chart carries it as text, never as markup.
func TestBurndownSVGEscapesTheSprintName(t *testing.T) {
	t.Parallel()
	w := setup(t)
	name := `</title><script>alert(1)</script><svg onload="alert(2)"> & 'x' ]]>`
	id := burndownWorld(t, w, name)
	res := w.Env.Do("GET", "/api/v1/sprints/"+id+"/burndown.svg", w.Member.Token, nil).Expect(t, 200)
	for _, bad := range []string{"<script", "<svg onload", `onload="`} {
		if strings.Contains(string(res.Body), bad) {
			t.Errorf("chart holds %q:\n%s", bad, res.Body)
		}
	}
	c, err := svgcharttest.Parse(res.Body)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Body)
	}
	if c.Title != "Burndown: "+name {
		t.Errorf("title reads back as %q", c.Title)
	}
	c.Root.Walk(func(n svgcharttest.Node) {
		if n.XMLName.Local == "script" || (n.XMLName.Local == "svg" && len(n.Attrs) > 0 && n.Attr("onload") != "") {
			t.Errorf("markup from the name: %v", n.XMLName)
		}
	})
}
