package sources

import (
	"strings"
	"testing"
	"time"
)

// TestLinearExport reads a real Linear export (testdata/README.md): every
// cell quoted, dates as JavaScript writes them, cycles with their dates,
// projects, parents, and statuses the workflow does not have (Triage,
// Canceled) placed by the dates the issue reached them.
func TestLinearExport(t *testing.T) {
	res, err := Linear(open(t, "linear_export.csv"), Mapping{}, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Summary
	if s.Tickets != 10 || s.Parents != 2 || s.Labels != 5 || s.Sprints != 2 || s.UsersInvited != 1 || s.UsersUnresolved != 0 {
		t.Fatalf("summary %+v problems %+v", s, res.Report.Problems)
	}
	if len(res.Report.Problems) != 0 {
		t.Fatalf("problems %+v", res.Report.Problems)
	}
	st := res.Report.Statuses
	if *st["In Progress"] != "InProgress" || *st["Triage"] != "Backlog" || *st["Canceled"] != "Cancelled" || *st["Done"] != "Done" {
		t.Fatalf("statuses %v", st)
	}
	if f := res.Report.Fields; *f["Project"] != "custom_fields.linear_project" || *f["Cycle Start"] != "sprint_start" ||
		*f["Completed"] != "resolved_at" || f["Roadmaps"] != nil || f["Milestone"] != nil {
		t.Fatalf("fields %v", f)
	}
	p := res.Doc.Projects[0]
	if len(res.Doc.Projects) != 1 || p.Key != "CLA" || p.Name != "Claw" || p.TicketCounter != 10 || res.Doc.Source != "linear_csv/CLA" {
		t.Fatalf("project %s %q counter %d", p.Key, p.Name, p.TicketCounter)
	}
	// The cycles keep their own dates.
	if len(p.Sprints) != 2 || p.Sprints[0].Name != "Cycle 1" || p.Sprints[0].StartDate != "2023-02-06" || p.Sprints[0].EndDate != "2023-02-20" ||
		p.Sprints[0].Status != "Active" || p.Sprints[1].Name != "Cycle 2" || p.Sprints[1].EndDate != "2023-03-20" {
		t.Fatalf("sprints %+v", p.Sprints)
	}
	tk := ticketOf(t, res.Doc, "CLA-1")
	if tk.Title != "First Claw" || tk.Status != "InProgress" || tk.Priority != "High" || tk.Estimate.String() != "5.00" ||
		tk.Reporter != "testingthisproduct101@gmail.com" || *tk.Assignee != "testingthisproduct101@gmail.com" ||
		*tk.Sprint != "Cycle 1" || *tk.Parent != "CLA-4" || len(tk.Labels) != 1 || tk.Labels[0] != "Feature" ||
		string(tk.CustomFields["linear_project"]) != `"Claw Alpha"` || *tk.ExternalKey != "CLA-1" ||
		!tk.CreatedAt.Equal(time.Date(2022, 8, 23, 13, 54, 1, 0, time.UTC)) || !tk.UpdatedAt.Equal(time.Date(2023, 2, 11, 1, 51, 47, 0, time.UTC)) ||
		tk.ResolvedAt != nil {
		t.Fatalf("CLA-1 %+v", tk)
	}
	// Canceled: the cancelled status, resolved when it was cancelled.
	if tk := ticketOf(t, res.Doc, "CLA-2"); tk.Status != "Cancelled" || tk.Priority != "Low" || tk.Assignee != nil ||
		tk.ResolvedAt == nil || !tk.ResolvedAt.Equal(time.Date(2023, 2, 11, 1, 51, 53, 0, time.UTC)) {
		t.Fatalf("CLA-2 %+v", tk)
	}
	if tk := ticketOf(t, res.Doc, "CLA-3"); tk.Status != "Backlog" || tk.DueDate.String() != "2023-02-28" {
		t.Fatalf("CLA-3 %+v", tk)
	}
	if tk := ticketOf(t, res.Doc, "CLA-7"); *tk.Parent != "CLA-6" || tk.Priority != "Critical" || *tk.Description != "More happenings" {
		t.Fatalf("CLA-7 %+v", tk)
	}
	if tk := ticketOf(t, res.Doc, "CLA-9"); tk.Status != "Done" || tk.ResolvedAt == nil ||
		!tk.ResolvedAt.Equal(time.Date(2023, 2, 11, 1, 52, 26, 0, time.UTC)) {
		t.Fatalf("CLA-9 %+v", tk)
	}
	if tk := ticketOf(t, res.Doc, "CLA-10"); tk.Priority != "None" || *tk.Description != "Oh no…" {
		t.Fatalf("CLA-10 %+v", tk)
	}
	if len(res.Doc.Fields) != 1 || res.Doc.Fields[0].Key != "linear_project" || res.Doc.Fields[0].Name != "Project" {
		t.Fatalf("fields %+v", res.Doc.Fields)
	}
}

// TestLinearCSV: Linear's 30-column export header (as Linear writes it;
// no real export of this shape was found in public test data, so the rows
// are made here): ISO dates, the cycle the sprint, the parent by id.
func TestLinearCSV(t *testing.T) {
	const header = "ID,Team,Title,Description,Status,Estimate,Priority,Project ID,Project,Creator,Assignee,Labels,Cycle Number,Cycle Name,Cycle Start,Cycle End,Created,Updated,Started,Triaged,Completed,Canceled,Archived,Due Date,Parent issue,Initiatives,Project Milestone ID,Project Milestone,SLA Status,Roadmaps\n"
	in := header +
		"ENG-7,Engineering,Ship it,\"Body\nin Markdown\",In Progress,3,Urgent,,,ada@example.com,grace@example.com,\"Bug, Backend\",4,Cycle 4,,,2024-03-12T15:04:05.000Z,2024-03-13T10:00:00.000Z,,,,,,2024-04-01,,,,,,\n" +
		"ENG-8,Engineering,Child,,Todo,,No priority,,,ada@example.com,,,,,,,2024-03-14T09:00:00.000Z,2024-03-14T09:00:00.000Z,,,,,,,ENG-7,,,,,\n"
	res, err := Linear(strings.NewReader(in), Mapping{}, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Report.Summary; s.Tickets != 2 || s.Parents != 1 || s.Labels != 2 || s.Sprints != 1 || len(res.Report.Problems) != 0 {
		t.Fatalf("summary %+v problems %+v", s, res.Report.Problems)
	}
	tk := ticketOf(t, res.Doc, "ENG-7")
	if tk.Priority != "Critical" || tk.Status != "InProgress" || tk.Estimate.String() != "3.00" || *tk.Assignee != "grace@example.com" ||
		tk.DueDate.String() != "2024-04-01" || *tk.Sprint != "Cycle 4" || res.Doc.Projects[0].Name != "Engineering" || res.Doc.Source != "linear_csv/ENG" {
		t.Fatalf("ENG-7 %+v", tk)
	}
	if c := ticketOf(t, res.Doc, "ENG-8"); *c.Parent != "ENG-7" || c.Priority != "None" {
		t.Fatalf("ENG-8 %+v", c)
	}
}

// TestLinearLinkColumns: the 34-column shape's link columns (its header as
// Linear publishes it; no real file of this shape was found, so the rows
// are made here). Each cell lists ids; a pair listed from both ends is
// one link, and an id not in the file is a problem.
func TestLinearLinkColumns(t *testing.T) {
	const header = "ID,Team,Title,Description,Status,Estimate,Priority,Project ID,Project,Creator,Assignee,Labels,Cycle Number,Cycle Name,Cycle Start,Cycle End,Created,Updated,Started,Triaged,Completed,Canceled,Archived,Due Date,Parent issue,Initiatives,Project Milestone ID,Project Milestone,SLA Status,UUID,Time in status (minutes),Related to,Blocked by,Duplicate of\n"
	in := header +
		"ENG-1,Eng,One,,Todo,,Medium,,,,,,,,,,2024-03-12T15:04:05.000Z,2024-03-12T15:04:05.000Z,,,,,,,,,,,,,,\"ENG-2, ENG-3\",ENG-3,\n" +
		"ENG-2,Eng,Two,,Done,,Medium,,,,,,,,,,2024-03-12T15:04:05.000Z,2024-03-12T15:04:05.000Z,,,2024-03-20T08:00:00.000Z,,,,,,,,,,,ENG-1,,ENG-9\n" +
		"ENG-3,Eng,Three,,Duplicate,,Medium,,,,,,,,,,2024-03-12T15:04:05.000Z,2024-03-12T15:04:05.000Z,,,,2024-03-13T08:00:00.000Z,,,,,,,,,,,,ENG-1\n"
	res, err := Linear(strings.NewReader(in), Mapping{}, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	// ENG-1 relates to ENG-2 (both ends list it: one link) and ENG-3;
	// ENG-3 blocks ENG-1; ENG-3 duplicates ENG-1; ENG-9 is not in the file.
	if s := res.Report.Summary; s.Tickets != 3 || s.Links != 4 {
		t.Fatalf("summary %+v problems %+v", s, res.Report.Problems)
	}
	if len(res.Report.Problems) != 1 || !strings.Contains(res.Report.Problems[0].Message, "ENG-9 is not in the file") {
		t.Fatalf("problems %+v", res.Report.Problems)
	}
	has := func(from, typ, to string) bool {
		for _, l := range ticketOf(t, res.Doc, from).Links {
			if l.Type == typ && l.Ticket == to {
				return true
			}
		}
		return false
	}
	if !has("ENG-3", "blocks", "ENG-1") || !has("ENG-3", "duplicates", "ENG-1") || !(has("ENG-1", "relates_to", "ENG-2") || has("ENG-2", "relates_to", "ENG-1")) {
		t.Fatalf("links %+v %+v %+v", ticketOf(t, res.Doc, "ENG-1").Links, ticketOf(t, res.Doc, "ENG-2").Links, ticketOf(t, res.Doc, "ENG-3").Links)
	}
	// "Duplicate" is no status of the workflow: cancelled by its date.
	if tk := ticketOf(t, res.Doc, "ENG-3"); tk.Status != "Cancelled" || tk.ResolvedAt == nil {
		t.Fatalf("ENG-3 %+v", tk)
	}
}
