package exchange_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/exchange"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
)

func TestImportJiraCSVDryRunWritesNothing(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := readSample(t, "jira_cloud_en.csv")
	r := f.postFile(t, f.b, f.owner.Token, fileForm{format: "jira_csv", mapping: enUsers, dryRun: "true", file: file}).Expect(t, 200).Map(t)
	sum := r["summary"].(map[string]any)
	if r["status"] != "dry_run" || sum["tickets"] != 22.0 || sum["comments"] != 17.0 || sum["sprints"] != 1.0 ||
		sum["users_invited"] != 3.0 || sum["users_unresolved"] != 0.0 {
		t.Fatalf("dry run %v", r)
	}
	if st := r["statuses"].(map[string]any); st["To Do"] != "Todo" || st["In Progress"] != "InProgress" {
		t.Fatalf("statuses %v", st)
	}
	if fl := r["fields"].(map[string]any); fl["Summary"] != "title" || fl["Custom field (Rank)"] != nil {
		t.Fatalf("fields %v", fl)
	}
	if n := count(t, f, `SELECT count(*) FROM projects WHERE org_id = $1`, f.b); n != 0 {
		t.Fatalf("%d projects after a dry run", n)
	}
	if n := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.b); n != 0 {
		t.Fatalf("%d imports after a dry run", n)
	}
	if n := count(t, f, `SELECT count(*) FROM users WHERE email LIKE '%@example.com' AND email LIKE 'sai.%'`); n != 0 {
		t.Fatalf("%d users after a dry run", n)
	}
}

func TestImportJiraCSVEndToEnd(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := readSample(t, "jira_cloud_en.csv")
	mapping := strings.Replace(enUsers, `{"users"`, `{"columns": {"custom_fields.jira_rank": "Custom field (Rank)"}, "users"`, 1)
	st := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: mapping, file: file})
	sum := st["summary"].(map[string]any)
	if st["status"] != "completed" || st["format"] != "jira_csv" || sum["tickets"] != 22.0 || sum["comments"] != 17.0 ||
		sum["tickets_created"] != 22.0 || sum["sprints"] != 1.0 || sum["users_invited"] != 3.0 {
		t.Fatalf("import %v", st)
	}
	if p, ok := st["problems"].([]any); !ok || len(p) != 0 {
		t.Fatalf("problems %v", st["problems"])
	}
	// The project is created with Jira's key, and TES-15 keeps its number.
	var title, status, assignee string
	row := f.env.DB.Pool.QueryRow(t.Context(), `SELECT t.title, t.status, u.email FROM tickets t
	    JOIN projects p ON p.id = t.project_id JOIN users u ON u.id = t.assignee_id
	    WHERE p.org_id = $1 AND p.key = 'TES' AND t.ticket_number = 15`, f.b)
	if err := row.Scan(&title, &status, &assignee); err != nil {
		t.Fatal(err)
	}
	if title != "Create S3 bucket and store input and output files" || status != "InProgress" || assignee != "sai.b@example.com" {
		t.Fatalf("TES-15 %q %q %q", title, status, assignee)
	}
	if n := count(t, f, `SELECT count(*) FROM comments c JOIN tickets t ON t.id = c.ticket_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND p.key = 'TES' AND t.ticket_number = 15`, f.b); n != 3 {
		t.Fatalf("TES-15 has %d comments", n)
	}
	if n := count(t, f, `SELECT ticket_counter FROM projects WHERE org_id = $1 AND key = 'TES'`, f.b); n != 25 {
		t.Fatalf("counter %d", n)
	}
	// Jira's Resolved date: the status change of each resolved issue, at
	// that time (TES-13: 19/Sep/25 9:03 AM).
	var resolved time.Time
	f.env.ScanRow(t, &resolved, `SELECT a.created_at FROM audit_log a JOIN tickets t ON t.id = a.entity_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND t.ticket_number = 13 AND a.action = 'status_changed' AND a.changes->0->>'new' = 'Done'`, f.b)
	if !resolved.Equal(time.Date(2025, 9, 19, 9, 3, 0, 0, time.UTC)) {
		t.Fatalf("TES-13 resolved at %v", resolved)
	}
	if n := count(t, f, `SELECT count(*) FROM audit_log a JOIN tickets t ON t.id = a.entity_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND a.action = 'status_changed'`, f.b); n != 10 {
		t.Fatalf("%d status changes", n)
	}
	// A column mapped to a custom field: the definition is created, the
	// values written.
	var rank string
	f.env.ScanRow(t, &rank, `SELECT v.text_value FROM ticket_custom_values v JOIN custom_fields cf ON cf.id = v.field_id
	    JOIN tickets t ON t.id = v.ticket_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1 AND cf.key = 'jira_rank' AND cf.type = 'text' AND t.ticket_number = 25`, f.b)
	if rank != "0|i001wn:" {
		t.Fatalf("TES-25 jira_rank %q", rank)
	}
	// The Jira key stays reachable: on the ticket, in search, by resolve.
	tk := f.env.Do("GET", "/api/v1/orgs/"+f.b.String()+"/tickets?q="+url.QueryEscape("external:tes-15"), f.owner.Token, nil).Expect(t, 200).Map(t)
	items := tk["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["external_key"] != "TES-15" || items[0].(map[string]any)["ticket_number"] != 15.0 {
		t.Fatalf("external:tes-15 %v", tk)
	}
	res := f.env.Do("GET", "/api/v1/tickets/resolve?ref=TES-9&org_id="+f.b.String(), f.owner.Token, nil).Expect(t, 200).Map(t)
	if ref, _ := res["ticket"].(map[string]any); ref == nil || ref["key"] != "TES-9" {
		t.Fatalf("resolve TES-9 %v", res)
	}
	// People are invited, never enrolled.
	if n := count(t, f, `SELECT count(*) FROM memberships m JOIN users u ON u.id = m.user_id
	    WHERE m.org_id = $1 AND u.email IN ('sai.b@example.com', 'sai.s@example.com', 'eric@example.com')`, f.b); n != 0 {
		t.Fatalf("%d imported people became members", n)
	}
	if n := count(t, f, `SELECT count(*) FROM invites WHERE org_id = $1 AND email IN ('sai.b@example.com', 'sai.s@example.com', 'eric@example.com')`, f.b); n != 3 {
		t.Fatalf("%d invites", n)
	}

	// The same file again updates nothing twice: no ticket, comment or
	// sprint is duplicated.
	again := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: enUsers, file: file})
	if s := again["summary"].(map[string]any); again["status"] != "completed" || s["tickets"] != 0.0 || s["comments"] != 0.0 {
		t.Fatalf("re-run %v", again)
	}
	if n := count(t, f, `SELECT count(*) FROM tickets t JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1`, f.b); n != 22 {
		t.Fatalf("%d tickets after a re-run", n)
	}
	if n := count(t, f, `SELECT count(*) FROM comments c JOIN tickets t ON t.id = c.ticket_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1`, f.b); n != 17 {
		t.Fatalf("%d comments after a re-run", n)
	}
}

func TestImportJiraCSVSpanishParentsAndLinks(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	mapping, _ := json.Marshal(map[string]any{"columns": map[string]string{"title": "Resumen", "external_key": "Clave de incidencia",
		"id": "ID de la incidencia", "status": "Estado", "status_category": "Categoría de estado",
		"project_key": "Clave del proyecto", "project_name": "Nombre del proyecto", "priority": "Prioridad",
		"assignee": "Persona asignada", "reporter": "Informador", "created_at": "Creada", "updated_at": "Actualizada",
		"description": "Descripción", "labels": "Etiquetas", "parent": "Principal", "parent_key": "Clave principal",
		"links_inward": "Enlace a la incidencia interna", "links_outward": "Enlace de incidencia saliente"}})
	st := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: string(mapping), file: readSample(t, "jira_cloud_es.csv")})
	sum := st["summary"].(map[string]any)
	if st["status"] != "completed" || sum["tickets"] != 106.0 || sum["parents"] != 87.0 || sum["links"] != 5.0 || sum["labels"] != 16.0 {
		t.Fatalf("import %v", sum)
	}
	problems := st["problems"].([]any)
	missing := 0
	for _, p := range problems {
		if strings.Contains(p.(map[string]any)["message"].(string), "is not in the file") {
			missing++
		}
	}
	if missing != 18 {
		t.Fatalf("%d missing parents named: %v", missing, problems)
	}
	var parent int
	f.env.ScanRow(t, &parent, `SELECT pt.ticket_number FROM tickets t JOIN tickets pt ON pt.id = t.parent_id
	    JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1 AND p.key = 'LIPU' AND t.ticket_number = 144`, f.b)
	if parent != 18 {
		t.Fatalf("LIPU-144's parent is LIPU-%d", parent)
	}
	if n := count(t, f, `SELECT count(*) FROM ticket_links l JOIN tickets a ON a.id = l.source_id JOIN tickets b ON b.id = l.target_id
	    JOIN projects p ON p.id = a.project_id WHERE p.org_id = $1 AND l.type = 'blocks' AND a.ticket_number = 4 AND b.ticket_number = 16`, f.b); n != 1 {
		t.Fatalf("LIPU-4 blocks LIPU-16: %d links", n)
	}
}

func TestImportFileAccessAndBadInput(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 1, TicketsPerProject: 1})
	file := readSample(t, "jira_cloud_en.csv")
	ff := fileForm{format: "jira_csv", dryRun: "true", file: file}
	outsider := f.env.Register("Outsider")
	member := f.env.Member(f.owner, "member")
	f.postFile(t, f.a, outsider.Token, ff).Expect(t, 404)
	if r := f.postFile(t, f.a, member.Token, ff).Expect(t, 403); !strings.Contains(r.Error().Message, "Admin") {
		t.Fatalf("403 %s", r.Body)
	}
	var pid uuid.UUID
	f.env.ScanRow(t, &pid, `SELECT id FROM projects WHERE org_id = $1 LIMIT 1`, f.a)
	key := f.env.APIKeyIn(f.owner, f.a, []string{"read", "write"}, pid)
	f.postFile(t, f.a, key, ff).Expect(t, 403)
	f.postFile(t, f.a, "", ff).Expect(t, 401)

	// Bad fields and files: 422, nothing recorded.
	before := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.a)
	for _, c := range []struct {
		ff   fileForm
		want string
	}{
		{fileForm{format: "jira_csv"}, "file: required"},
		{fileForm{file: file}, "format: required"},
		{fileForm{format: "xml", file: file}, "format: must be one of"},
		{fileForm{format: "jira_csv", dryRun: "maybe", file: file}, "dry_run"},
		{fileForm{format: "jira_csv", mapping: "{", file: file}, "mapping"},
		{fileForm{format: "jira_csv", file: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")}, "binary"},
		{fileForm{format: "jira_csv", file: []byte("Summary,Issue key\nok,A-1\nfine,A-\xff\n")}, "row 3, column 2"},
		{fileForm{format: "jira_csv", file: []byte("Summary,Status\nok,To Do\n")}, "no external_key column"},
		{fileForm{format: "linear_csv", file: file}, `no title column (\"Title\")`},
		{fileForm{format: "jira_csv", file: []byte("Summary,Issue key,Created\nok,A-1,someday\n")}, "no issue can be imported"},
	} {
		r := f.postFile(t, f.a, f.owner.Token, c.ff).Expect(t, 422)
		if !strings.Contains(string(r.Body), c.want) {
			t.Errorf("%+v: %s, want %q", c.ff.format, r.Body, c.want)
		}
	}
	// A form of many fields is refused before it fills the memory.
	var many bytes.Buffer
	mw := multipart.NewWriter(&many)
	for i := 0; i < 17; i++ {
		_ = mw.WriteField(fmt.Sprintf("extra_%d", i), "x")
	}
	_ = mw.Close()
	req := httptest.NewRequest("POST", "/api/v1/orgs/"+f.a.String()+"/imports", &many)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+f.owner.Token)
	if r := f.env.Send(req).Expect(t, 422); !strings.Contains(string(r.Body), "more than 16 fields") {
		t.Errorf("17 fields: %s", r.Body)
	}
	if n := count(t, f, `SELECT count(*) FROM imports WHERE org_id = $1`, f.a); n != before {
		t.Fatalf("%d imports recorded by refused files", n-before)
	}

	// A file past the 1 MiB of ordinary bodies is the route's to take.
	var big strings.Builder
	big.WriteString("Summary,Issue key\n")
	for i := 1; big.Len() <= 2<<20; i++ {
		fmt.Fprintf(&big, "An issue of a big export,BIG-%d\n", i)
	}
	r0 := f.postFile(t, f.a, f.owner.Token, fileForm{format: "jira_csv", dryRun: "true", file: []byte(big.String())}).Expect(t, 200).Map(t)
	if n := r0["summary"].(map[string]any)["tickets"].(float64); n < 50_000 {
		t.Fatalf("2 MiB dry run: %v tickets", n)
	}

	// A JSON body is a Tracker document, as POST /import takes it.
	raw, _ := json.Marshal(smallDoc(f.owner.Email))
	r := f.env.Do("POST", "/api/v1/orgs/"+f.b.String()+"/imports", f.owner.Token, raw).Expect(t, 202)
	var res importer.Status
	r.Decode(t, &res)
	// And the tracker_json format in a form.
	f.postFile(t, f.b, f.owner.Token, fileForm{format: "tracker_json", file: raw}).Expect(t, 202)
}

func TestImportGitHubJSONEndToEnd(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := readSample(t, "github_issues_octokit.json")
	ff := fileForm{format: "github_json", mapping: `{"users": {"octokit-fixture-user-a": "a@example.com"}}`, file: file, name: "issues.json"}
	ff.dryRun = "true"
	f.postFile(t, f.b, f.owner.Token, ff).Expect(t, 422) // no project key: GitHub has none
	ff.projectKey = "OCTO"
	if r := f.postFile(t, f.b, f.owner.Token, ff).Expect(t, 200).Map(t); r["summary"].(map[string]any)["tickets"] != 13.0 {
		t.Fatalf("dry run %v", r)
	}
	ff.dryRun = ""
	st := f.runFile(t, f.b, ff)
	if s := st["summary"].(map[string]any); st["status"] != "completed" || st["format"] != "github_json" || s["tickets"] != 13.0 {
		t.Fatalf("import %v", st)
	}
	var title, reporter string
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT t.title, u.email FROM tickets t JOIN projects p ON p.id = t.project_id
	    JOIN users u ON u.id = t.reporter_id WHERE p.org_id = $1 AND p.key = 'OCTO' AND t.ticket_number = 13`, f.b).Scan(&title, &reporter); err != nil {
		t.Fatal(err)
	}
	if title != "Test issue 13" || reporter != "a@example.com" {
		t.Fatalf("OCTO-13 %q by %q", title, reporter)
	}
	again := f.runFile(t, f.b, ff)
	if s := again["summary"].(map[string]any); s["tickets"] != 0.0 {
		t.Fatalf("re-run %v", again)
	}
	// The GitHub reference finds the ticket (numbered as on GitHub).
	ref := "octokit-fixture-org/tmp-scenario-paginate-issues-20220719043836917-izyoe#7"
	res := f.env.Do("GET", "/api/v1/tickets/resolve?org_id="+f.b.String()+"&ref="+url.QueryEscape(ref), f.owner.Token, nil).Expect(t, 200).Map(t)
	if tk, _ := res["ticket"].(map[string]any); tk == nil || tk["key"] != "OCTO-7" {
		t.Fatalf("resolve %s: %v", ref, res)
	}
	// Someone outside the org learns nothing from the reference.
	outsider := f.env.Register("Outsider")
	f.env.Do("GET", "/api/v1/tickets/resolve?org_id="+f.b.String()+"&ref="+url.QueryEscape(ref), outsider.Token, nil).Expect(t, 404)
}

// TestImportJiraCSVRerunUpdates imports an earlier state of the real
// export (TES-15 still To Do, its last comment not yet written), then the
// export itself: the ticket is updated and gains the comment, and nothing
// is duplicated.
func TestImportJiraCSVRerunUpdates(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := string(readSample(t, "jira_cloud_en.csv"))
	const row = "Create S3 bucket and store input and output files,TES-15,10674,Story,In Progress,"
	const comment = "12/Sep/25 9:06 AM;712020:b0892835-64bc-4809-afd1-cc09a3ffc20e;Testing in progress 09/12 9 AM EST"
	if strings.Count(file, row) != 1 || strings.Count(file, comment) != 1 {
		t.Fatal("the sample changed")
	}
	earlier := strings.Replace(strings.Replace(file, row, strings.Replace(row, "In Progress", "To Do", 1), 1), comment, "", 1)
	first := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: enUsers, file: []byte(earlier)})
	if s := first["summary"].(map[string]any); s["tickets"] != 22.0 || s["comments"] != 16.0 {
		t.Fatalf("first %v", first)
	}
	status := func() (string, int) {
		var st string
		f.env.ScanRow(t, &st, `SELECT t.status FROM tickets t JOIN projects p ON p.id = t.project_id
		    WHERE p.org_id = $1 AND p.key = 'TES' AND t.ticket_number = 15`, f.b)
		return st, count(t, f, `SELECT count(*) FROM comments c JOIN tickets t ON t.id = c.ticket_id
		    JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1 AND p.key = 'TES' AND t.ticket_number = 15`, f.b)
	}
	if st, n := status(); st != "Todo" || n != 2 {
		t.Fatalf("TES-15 first: %s with %d comments", st, n)
	}
	again := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: enUsers, file: []byte(file)})
	s := again["summary"].(map[string]any)
	if again["status"] != "completed" || s["tickets"] != 0.0 || s["tickets_updated"] != 1.0 || s["comments"] != 1.0 {
		t.Fatalf("re-run %v", again)
	}
	if st, n := status(); st != "InProgress" || n != 3 {
		t.Fatalf("TES-15 after the re-run: %s with %d comments", st, n)
	}
	if n := count(t, f, `SELECT count(*) FROM tickets t JOIN projects p ON p.id = t.project_id WHERE p.org_id = $1`, f.b); n != 22 {
		t.Fatalf("%d tickets", n)
	}
	if n := count(t, f, `SELECT count(*) FROM comments c JOIN tickets t ON t.id = c.ticket_id JOIN projects p ON p.id = t.project_id
	    WHERE p.org_id = $1`, f.b); n != 17 {
		t.Fatalf("%d comments", n)
	}
	// The third run finds nothing to change.
	third := f.runFile(t, f.b, fileForm{format: "jira_csv", mapping: enUsers, file: []byte(file)})
	if s := third["summary"].(map[string]any); s["tickets_updated"] != 0.0 || s["comments"] != 0.0 {
		t.Fatalf("third %v", third)
	}
}

func TestImportGenericCSV(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	file := readSample(t, "jira_cloud_en.csv")
	mapping := `{"columns": {"title": "Summary", "external_key": "Issue key", "status": "Status", "priority": "Priority",
	 "created_at": "Created", "description": "Description"}}`
	if r := f.postFile(t, f.b, f.owner.Token, fileForm{format: "csv", mapping: mapping, file: file}).Expect(t, 422); !strings.Contains(string(r.Body), "project_key") {
		t.Fatalf("422 %s", r.Body)
	}
	ff := fileForm{format: "csv", projectKey: "GEN", mapping: mapping, file: file}
	st := f.runFile(t, f.b, ff)
	if s := st["summary"].(map[string]any); st["format"] != "csv" || s["tickets"] != 22.0 {
		t.Fatalf("import %v", st)
	}
	res := f.env.Do("GET", "/api/v1/tickets/resolve?ref=TES-25&org_id="+f.b.String(), f.owner.Token, nil).Expect(t, 200).Map(t)
	if tk, _ := res["ticket"].(map[string]any); tk == nil || tk["key"] != "GEN-25" {
		t.Fatalf("resolve TES-25: %v", res)
	}
	if again := f.runFile(t, f.b, ff); again["summary"].(map[string]any)["tickets"] != 0.0 {
		t.Fatalf("re-run %v", again)
	}
}

// TestImportFileBodyLimit: a form over the route's limit is a 413 (a body
// without a length is cut while read: TestLimitedBody in api).
func TestImportFileBodyLimit(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{exchange.New(export.New(e.DB, e.Clock), importer.New(e.DB, e.Clock, nil), e.Log,
			exchange.Settings{TempDir: t.TempDir(), ImportLimit: 4 << 10})}
	}})
	owner := env.Register("Owner")
	f := &fixture{env: env, owner: owner, b: owner.OrgID}
	file := readSample(t, "jira_cloud_en.csv") // 14 KB
	if r := f.postFile(t, owner.OrgID, owner.Token, fileForm{format: "jira_csv", dryRun: "true", file: file}).Expect(t, 413); r.ErrorCode() == "" {
		t.Fatalf("413 %s", r.Body)
	}
	small := fileForm{format: "jira_csv", dryRun: "true", file: []byte("Summary,Issue key\nok,A-1\n")}
	f.postFile(t, owner.OrgID, owner.Token, small).Expect(t, 200)
}
