package sources

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/exchange/export"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// defaultTarget is an org whose Default workflow is the built-in one.
func defaultTarget() Target {
	return Target{Statuses: []Status{{"Backlog", "todo"}, {"Todo", "todo"}, {"InProgress", "in_progress"},
		{"InReview", "in_progress"}, {"Done", "done"}, {"Cancelled", "cancelled"}},
		Members: map[string]bool{"admin@example.com": true}, ImporterEmail: "admin@example.com", Now: now}
}

func open(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func ticketOf(t *testing.T, d export.Document, key string) export.Ticket {
	t.Helper()
	for _, p := range d.Projects {
		for _, tk := range p.Tickets {
			if p.Key+"-"+itoa(tk.Number) == key {
				return tk
			}
		}
	}
	t.Fatalf("no ticket %s", key)
	return export.Ticket{}
}

// enMapping names the people of the English sample by display name and
// by account id, as an administrator would.
var enMapping = Mapping{Users: map[string]string{"Eric Medlock": "eric@example.com",
	"5fe07a7dd3649601392ba191": "sai.b@example.com", "Saicharan Basireddy": "sai.b@example.com",
	"712020:b0892835-64bc-4809-afd1-cc09a3ffc20e": "sai.s@example.com", "5db9d8eb4ff1890d31036b89": "eric@example.com"}}

func TestJiraCloudEnglishExport(t *testing.T) {
	res, err := Jira(open(t, "jira_cloud_en.csv"), enMapping, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Summary
	if s.Tickets != 22 || s.Comments != 17 || s.Sprints != 1 || s.UsersInvited != 3 || s.UsersUnresolved != 0 {
		t.Fatalf("summary %+v problems %+v", s, res.Report.Problems)
	}
	if len(res.Report.Problems) != 0 {
		t.Fatalf("problems %+v", res.Report.Problems)
	}
	d := res.Doc
	if len(d.Projects) != 1 || d.Projects[0].Key != "TES" || d.Projects[0].Name != "TestAutoGen" || d.Projects[0].TicketCounter != 25 {
		t.Fatalf("project %+v", d.Projects[0].Key)
	}
	if *res.Report.Statuses["To Do"] != "Todo" || *res.Report.Statuses["In Progress"] != "InProgress" || *res.Report.Statuses["Done"] != "Done" {
		t.Fatalf("statuses %v", res.Report.Statuses)
	}
	if *res.Report.Priorities["Medium"] != "Medium" || *res.Report.Fields["Custom field (Story Points)"] != "estimate" || res.Report.Fields["Custom field (Rank)"] != nil {
		t.Fatalf("priorities %v fields %v", res.Report.Priorities, res.Report.Fields)
	}
	// TES-15: assignee by account id, reporter by account id, three
	// comments "date;account id;body" by account id, sprint, created in
	// the 12-hour clock.
	tk := ticketOf(t, d, "TES-15")
	if tk.Title != "Create S3 bucket and store input and output files" || tk.Status != "InProgress" ||
		tk.Assignee == nil || *tk.Assignee != "sai.b@example.com" || tk.Reporter != "sai.s@example.com" ||
		tk.Sprint == nil || *tk.Sprint != "TES Sprint 1" || !tk.CreatedAt.Equal(time.Date(2025, 9, 3, 9, 6, 0, 0, time.UTC)) {
		t.Fatalf("TES-15 %+v", tk)
	}
	if len(tk.Comments) != 3 || tk.Comments[2].Author != "sai.s@example.com" || tk.Comments[2].Body != "Testing in progress 09/12 9 AM EST" ||
		!tk.Comments[0].CreatedAt.Equal(time.Date(2025, 9, 5, 7, 25, 0, 0, time.UTC)) {
		t.Fatalf("TES-15 comments %+v", tk.Comments)
	}
	// TES-9: a comment whose quoted cell runs over two lines.
	tk = ticketOf(t, d, "TES-9")
	if len(tk.Comments) != 2 || !strings.Contains(tk.Comments[0].Body, "\nAlong with we need to move the code") {
		t.Fatalf("TES-9 comments %+v", tk.Comments)
	}
	// TES-13: due date, Done, with Jira's Resolved date; TES-15, in
	// progress, has none.
	tk = ticketOf(t, d, "TES-13")
	if tk.DueDate == nil || tk.DueDate.String() != "2025-09-18" || tk.Status != "Done" ||
		tk.ResolvedAt == nil || !tk.ResolvedAt.Equal(time.Date(2025, 9, 19, 9, 3, 0, 0, time.UTC)) {
		t.Fatalf("TES-13 %+v", tk)
	}
	resolved := 0
	for _, tk := range d.Projects[0].Tickets {
		if tk.ResolvedAt != nil {
			resolved++
		}
	}
	if resolved != 10 || ticketOf(t, d, "TES-15").ResolvedAt != nil || *res.Report.Fields["Resolved"] != "resolved_at" {
		t.Fatalf("%d tickets resolved", resolved)
	}
	// TES-23: quotes doubled inside a quoted title.
	if tk := ticketOf(t, d, "TES-23"); !strings.HasPrefix(tk.Title, `Need to discuss "Login" steps in the "test plan/selinum"`) {
		t.Fatalf("TES-23 %q", tk.Title)
	}
}

func TestJiraCloudEnglishExportUnmappedPeople(t *testing.T) {
	res, err := Jira(open(t, "jira_cloud_en.csv"), Mapping{}, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	// Jira Cloud names people by display name and account id, never by
	// email: without mapping.users everyone is unresolved, named once.
	s := res.Report.Summary
	if s.Tickets != 22 || s.UsersUnresolved == 0 || s.UsersInvited != 0 {
		t.Fatalf("summary %+v", s)
	}
	tk := ticketOf(t, res.Doc, "TES-15")
	if tk.Assignee != nil || tk.Reporter != "admin@example.com" || tk.Comments[0].Author != "admin@example.com" {
		t.Fatalf("TES-15 %+v", tk)
	}
	found := false
	for _, p := range res.Report.Problems {
		if p.Column == "Assignee" && strings.Contains(p.Message, `"Saicharan Basireddy" has no email`) && p.Row > 1 {
			found = true
		}
	}
	if !found {
		t.Fatalf("problems %+v", res.Report.Problems)
	}
}

// esMapping reads the Spanish export's headers.
var esMapping = Mapping{Columns: map[string]string{"title": "Resumen", "external_key": "Clave de incidencia",
	"id": "ID de la incidencia", "status": "Estado", "status_category": "Categoría de estado",
	"project_key": "Clave del proyecto", "project_name": "Nombre del proyecto", "priority": "Prioridad",
	"assignee": "Persona asignada", "assignee_id": "ID de la persona asignada", "reporter": "Informador",
	"reporter_id": "ID del informador", "created_at": "Creada", "updated_at": "Actualizada", "resolved_at": "Resuelta",
	"due_date": "Fecha de vencimiento", "description": "Descripción", "labels": "Etiquetas", "parent": "Principal",
	"parent_key": "Clave principal", "links_inward": "Enlace a la incidencia interna",
	"links_outward": "Enlace de incidencia saliente", "estimate": "Campo personalizado (Story point estimate)"}}

func TestJiraCloudSpanishExport(t *testing.T) {
	res, err := Jira(open(t, "jira_cloud_es.csv"), esMapping, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Summary
	// 106 issues; 87 with a parent in the file (18 name one outside it);
	// 5 links once each (listed from both ends); 3 sprints; 16 labels.
	if s.Tickets != 106 || s.Parents != 87 || s.Links != 5 || s.Sprints != 3 || s.Labels != 16 {
		t.Fatalf("summary %+v", s)
	}
	// "Tareas por hacer" is no status of the workflow: its category "Por
	// hacer" (to do) takes the workflow's first to-do status.
	if *res.Report.Statuses["Tareas por hacer"] != "Backlog" || *res.Report.Statuses["En curso"] != "InProgress" {
		t.Fatalf("statuses %v", res.Report.Statuses)
	}
	missing := 0
	for _, p := range res.Report.Problems {
		if p.Column == "Principal" || p.Column == "Clave principal" {
			missing++
		}
	}
	if missing != 18 {
		t.Fatalf("%d parent problems: %+v", missing, res.Report.Problems)
	}
	tk := ticketOf(t, res.Doc, "LIPU-144")
	if tk.Title != "Front - Pantalla Clientes Accion Detalles Vista Operadores" || tk.Parent == nil || *tk.Parent != "LIPU-18" ||
		!tk.CreatedAt.Equal(time.Date(2025, 11, 10, 16, 51, 0, 0, time.UTC)) || *tk.Sprint != "Sprint 1" {
		t.Fatalf("LIPU-144 %+v", tk)
	}
	if res.Doc.Projects[0].TicketCounter != 144 {
		t.Fatalf("counter %d", res.Doc.Projects[0].TicketCounter)
	}
	// The Blocks link: outward on LIPU-4.
	found := false
	for _, l := range ticketOf(t, res.Doc, "LIPU-4").Links {
		if l.Type == "blocks" && l.Ticket == "LIPU-16" {
			found = true
		}
	}
	if !found {
		t.Fatalf("LIPU-4 links %+v", ticketOf(t, res.Doc, "LIPU-4").Links)
	}
}

func TestJiraTargetProjectKeepsNumbers(t *testing.T) {
	tg := defaultTarget()
	tg.ProjectKey = "NEW"
	res, err := Jira(open(t, "jira_cloud_en.csv"), enMapping, tg)
	if err != nil {
		t.Fatal(err)
	}
	// TES-15 comes in as NEW-15, so a later export of the project names
	// the same tickets; TES-15 stays its external key.
	p := res.Doc.Projects[0]
	if p.Key != "NEW" || p.TicketCounter != 25 || p.Tickets[0].Number != 4 || res.Doc.Source != "jira_csv/NEW" ||
		*ticketOf(t, res.Doc, "NEW-15").ExternalKey != "TES-15" {
		t.Fatalf("project %s counter %d first %d", p.Key, p.TicketCounter, p.Tickets[0].Number)
	}
	// Two Jira projects into one: their numbers collide, so they are
	// numbered in order of project and number, links and parents along.
	in := "Summary,Issue key,Parent key,Outward issue link (Blocks)\nA1,A-1,,B-1\nA2,A-2,A-1,\nB1,B-1,,\n"
	res, err = Jira(strings.NewReader(in), Mapping{}, tg)
	if err != nil {
		t.Fatal(err)
	}
	if tk := ticketOf(t, res.Doc, "NEW-2"); tk.Title != "A2" || *tk.Parent != "NEW-1" {
		t.Fatalf("NEW-2 %+v", tk)
	}
	if tk := ticketOf(t, res.Doc, "NEW-1"); len(tk.Links) != 1 || tk.Links[0].Ticket != "NEW-3" || ticketOf(t, res.Doc, "NEW-3").Title != "B1" {
		t.Fatalf("NEW-1 %+v", tk)
	}
}

func TestParseDateLocales(t *testing.T) {
	for in, want := range map[string]time.Time{
		"22/Sep/25 9:26 AM":    time.Date(2025, 9, 22, 9, 26, 0, 0, time.UTC),
		"02/nov/25 9:06 PM":    time.Date(2025, 11, 2, 21, 6, 0, 0, time.UTC),
		"10/oct./16 11:54 AM":  time.Date(2016, 10, 10, 11, 54, 0, 0, time.UTC),
		"06/août/15":           time.Date(2015, 8, 6, 0, 0, 0, 0, time.UTC),
		"2024-03-12 15:04":     time.Date(2024, 3, 12, 15, 4, 0, 0, time.UTC),
		"12/Sep/25 12:05 AM":   time.Date(2025, 9, 12, 0, 5, 0, 0, time.UTC),
		"05/dic/24 3:15 p. m.": time.Date(2024, 12, 5, 15, 15, 0, 0, time.UTC),
		"17/Mär/23 10:00":      time.Date(2023, 3, 17, 10, 0, 0, 0, time.UTC),
	} {
		got, ok := parseDate(in, "")
		if !ok || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"31/Feb/25", "yesterday", "12/Foo/25 9:00 AM", "32/Jan/25"} {
		if _, ok := parseDate(in, ""); ok {
			t.Errorf("%q parsed", in)
		}
	}
}

func invalid(t *testing.T, err error, want string) {
	t.Helper()
	var de *domain.Error
	if !errors.As(err, &de) || !strings.Contains(err.Error()+" "+strings.Join(de.Details, " "), want) {
		t.Fatalf("error %v, want a 422 naming %q", err, want)
	}
}

func TestJiraBadInput(t *testing.T) {
	tg := defaultTarget()
	_, err := Jira(strings.NewReader("\x00\x01\x02PK binary"), Mapping{}, tg)
	invalid(t, err, "binary")
	_, err = Jira(strings.NewReader("Summary,Status\nA,To Do\n"), Mapping{}, tg)
	invalid(t, err, "no external_key column")
	wide := strings.Repeat("x,", 1001) + "x\n"
	_, err = Jira(strings.NewReader(wide), Mapping{}, tg)
	invalid(t, err, "at most 1000")
	big := "Summary,Issue key\n\"" + strings.Repeat("a", MaxCell+1) + "\",A-1\n"
	_, err = Jira(strings.NewReader(big), Mapping{}, tg)
	invalid(t, err, "row 2, column 1")
	_, err = Jira(strings.NewReader("Summary,Issue key\nok,A-1\n\xff\xfe,A-2\n"), Mapping{}, tg)
	invalid(t, err, "row 3, column 1")
}

func TestJiraSemicolonsBOMAndDuplicates(t *testing.T) {
	in := "\xEF\xBB\xBFSummary;Issue key;Status;Priority;Created;Labels;Labels\n" +
		"First;AB-7;To Do;Highest;2024-03-12 15:04;x;y\n" +
		"Again;AB-7;Done;Low;2024-03-12 15:05;;\n" +
		"Bad date;AB-8;To Do;Low;someday;;\n" +
		"Odd status;AB-9;Waiting for QA;Low;2024-03-12 15:05;;\n"
	res, err := Jira(strings.NewReader(in), Mapping{}, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Summary.Tickets != 1 || res.Report.Summary.Labels != 2 {
		t.Fatalf("summary %+v", res.Report.Summary)
	}
	tk := ticketOf(t, res.Doc, "AB-7")
	if tk.Title != "First" || tk.Priority != "Critical" || len(tk.Labels) != 2 {
		t.Fatalf("AB-7 %+v", tk)
	}
	want := []Problem{
		{Row: 3, Column: "Issue key", Message: "AB-7 is also row 2; the later row is skipped"},
		{Row: 4, Column: "Created", Message: `unparsable date "someday"; the row is skipped (set mapping.date_format)`},
		{Row: 5, Column: "Status", Message: `status "Waiting for QA" has no target: name it in mapping.statuses; the row is skipped`},
	}
	if len(res.Report.Problems) != len(want) {
		t.Fatalf("problems %+v", res.Report.Problems)
	}
	for i, p := range want {
		if res.Report.Problems[i] != p {
			t.Fatalf("problem %d: %+v, want %+v", i, res.Report.Problems[i], p)
		}
	}
	if res.Report.Statuses["Waiting for QA"] != nil {
		t.Fatalf("statuses %v", res.Report.Statuses)
	}
	m := Mapping{Statuses: map[string]string{"Waiting for QA": "In Review"}}
	res, err = Jira(strings.NewReader(in), m, defaultTarget())
	if err != nil || ticketOf(t, res.Doc, "AB-9").Status != "InReview" {
		t.Fatalf("%v %+v", err, res.Report)
	}
}

func TestJiraCustomFieldsByMapping(t *testing.T) {
	m := enMapping
	m.Columns = map[string]string{"custom_fields.jira_rank": "Custom field (Rank)"}
	res, err := Jira(open(t, "jira_cloud_en.csv"), m, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Doc.Fields) != 1 || res.Doc.Fields[0].Key != "jira_rank" || res.Doc.Fields[0].Name != "Custom field (Rank)" ||
		res.Doc.Fields[0].Type != "text" || res.Doc.Fields[0].Projects[0] != "TES" {
		t.Fatalf("fields %+v", res.Doc.Fields)
	}
	if v := string(ticketOf(t, res.Doc, "TES-25").CustomFields["jira_rank"]); v != `"0|i001wn:"` {
		t.Fatalf("TES-25 rank %s", v)
	}
	if f := res.Report.Fields["Custom field (Rank)"]; f == nil || *f != "custom_fields.jira_rank" {
		t.Fatalf("fields %v", res.Report.Fields)
	}
	for _, bad := range []map[string]string{{"custom_fields.Bad Key": "Sprint"}, {"custom_fields.x": "No such column"}, {"colour": "Summary"}} {
		m.Columns = bad
		_, err := Jira(open(t, "jira_cloud_en.csv"), m, defaultTarget())
		invalid(t, err, "mapping.columns.")
	}
}

// TestGenericCSVOfTheRealExport reads the real Jira export as any CSV: only
// the columns the mapping names come across.
func TestGenericCSVOfTheRealExport(t *testing.T) {
	tg := defaultTarget()
	m := Mapping{Columns: map[string]string{"title": "Summary", "external_key": "Issue key", "status": "Status",
		"created_at": "Created", "labels": "Sprint", "description": "Description"}}
	_, err := CSV(open(t, "jira_cloud_en.csv"), m, tg)
	invalid(t, err, "project_key: required")
	tg.ProjectKey = "GEN"
	res, err := CSV(open(t, "jira_cloud_en.csv"), m, tg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Summary
	if s.Tickets != 22 || s.Comments != 0 || s.Labels != 1 || res.Doc.Source != "csv/GEN" || len(res.Report.Problems) != 0 {
		t.Fatalf("summary %+v problems %+v", s, res.Report.Problems)
	}
	// The number each key ends with numbers the tickets.
	tk := ticketOf(t, res.Doc, "GEN-25")
	if tk.Title != "Enable Selinium scripts to also test Pega apps/iframes/etc" || *tk.ExternalKey != "TES-25" ||
		tk.Status != "Todo" || tk.Reporter != "admin@example.com" || len(tk.Labels) != 1 || tk.Labels[0] != "TES Sprint 1" {
		t.Fatalf("GEN-25 %+v", tk)
	}
	if res.Report.Fields["Assignee"] != nil || *res.Report.Fields["Summary"] != "title" {
		t.Fatalf("fields %v", res.Report.Fields)
	}
	_, err = CSV(open(t, "jira_cloud_en.csv"), Mapping{Columns: map[string]string{"status": "Status"}}, tg)
	invalid(t, err, "mapping.columns.title: required for csv")
}

func TestGenericCSVRowsWithoutKeys(t *testing.T) {
	tg := defaultTarget()
	tg.ProjectKey = "GEN"
	in := "Name;Tags;Owner;Parent\nFirst;a, b;ada@example.com;\nSecond;b;;\n"
	res, err := CSV(strings.NewReader(in), Mapping{Columns: map[string]string{"title": "Name", "labels": "Tags", "assignee": "Owner"}}, tg)
	if err != nil {
		t.Fatal(err)
	}
	// Rows without a key are numbered by their row.
	first := ticketOf(t, res.Doc, "GEN-2")
	if first.ExternalKey != nil || len(first.Labels) != 2 || *first.Assignee != "ada@example.com" || res.Report.Summary.UsersInvited != 1 {
		t.Fatalf("GEN-1 %+v %+v", first, res.Report.Summary)
	}
}

func TestJiraLongCellsAreCutByCharacters(t *testing.T) {
	title := strings.Repeat("é", 600)
	desc := strings.Repeat("ü", domain.MaxFreeText+10)
	in := "Summary,Issue key,Description\n" + title + ",AB-1,\"" + desc + "\"\n"
	res, err := Jira(strings.NewReader(in), Mapping{}, defaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	tk := ticketOf(t, res.Doc, "AB-1")
	if tk.Title != strings.Repeat("é", 500) || len([]rune(*tk.Description)) != domain.MaxFreeText {
		t.Fatalf("title %d runes, description %d runes", len([]rune(tk.Title)), len([]rune(*tk.Description)))
	}
	if len(res.Report.Problems) != 1 || res.Report.Problems[0].Column != "Description" {
		t.Fatalf("problems %+v", res.Report.Problems)
	}
}
