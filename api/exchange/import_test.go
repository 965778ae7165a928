package exchange_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/exchange/export/exportseed"
)

// smallDoc is a valid document with one project and one ticket.
func smallDoc(email string) map[string]any {
	return map[string]any{
		"version": 1, "source": "test", "exported_at": "2025-01-02T03:04:05Z",
		"users":     []any{map[string]any{"email": email, "display_name": "Ann", "role": "Member"}},
		"workflows": []any{map[string]any{"name": "Flow", "statuses": []any{map[string]any{"name": "Open", "category": "todo"}}, "transitions": []any{}}},
		"labels":    []any{map[string]any{"name": "bug", "color": "#ff0000"}},
		"projects": []any{map[string]any{"key": "SM", "name": "Small", "workflow": "Flow", "members": []any{email},
			"sprints": []any{map[string]any{"name": "S1", "start_date": "2025-01-01", "end_date": "2025-01-14", "status": "Active"}},
			"tickets": []any{map[string]any{"number": 1, "title": "One", "status": "Open", "priority": "High",
				"reporter": email, "assignee": email, "sprint": "S1", "labels": []any{"bug"},
				"comments":     []any{map[string]any{"author": email, "body": "hi"}, map[string]any{"author": email, "body": "re", "parent": 0}},
				"time_entries": []any{map[string]any{"user": email, "date": "2025-01-03", "duration_minutes": 60, "activity_type": "Coding", "status": "Draft"}},
			}}}},
	}
}

func TestImportValidation(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 1, TicketsPerProject: 1})
	path := "/api/v1/import?org_id=" + f.b.String()

	t.Run("422 unsupported version has the spec's own body", func(t *testing.T) {
		for _, v := range []any{2, 0, 99} {
			doc := smallDoc("x@example.test")
			doc["version"] = v
			doc["projects"] = "not even an array" // the version is reported first
			r := f.env.Do("POST", path, f.owner.Token, doc).Expect(t, 422)
			var body map[string]any
			r.Decode(t, &body)
			want := map[string]any{"error": "unsupported export version", "details": "received version " + jsonNum(v) + ", expected 1"}
			if len(body) != 2 || body["error"] != want["error"] || body["details"] != want["details"] {
				t.Fatalf("body %s", r.Body)
			}
		}
	})

	t.Run("422 lists every bad path", func(t *testing.T) {
		doc := smallDoc("ann@example.test")
		p := doc["projects"].([]any)[0].(map[string]any)
		tk := p["tickets"].([]any)[0].(map[string]any)
		tk["title"] = ""
		tk["reporter"] = "nobody@example.test"
		tk["labels"] = []any{"nolabel"}
		tk["sprint"] = "S9"
		tk["status"] = "Nope"
		tk["comments"].([]any)[1].(map[string]any)["parent"] = 5
		tk["time_entries"].([]any)[0].(map[string]any)["status"] = "Approved"
		tk["parent"] = "SM-1"
		tk["links"] = []any{map[string]any{"type": "blocked_by", "ticket": "SM-2"}, map[string]any{"type": "blocks", "ticket": "not a ref"}}
		p["tickets"] = append(p["tickets"].([]any), map[string]any{"number": 1, "title": "dup", "status": "Open", "reporter": "ann@example.test"})
		doc["projects"] = append(doc["projects"].([]any), map[string]any{"key": "sm", "name": "Dup key", "tickets": []any{}})
		delete(doc, "exported_at")
		r := f.env.Do("POST", path, f.owner.Token, doc).Expect(t, 422)
		e := r.Error()
		if e.Code != "VALIDATION_ERROR" {
			t.Fatalf("code %s", e.Code)
		}
		for _, want := range []string{
			"exported_at: required",
			"projects[0].tickets[0].title: must be 1-500 characters",
			"projects[0].tickets[0].status: must be a status of the project's workflow",
			"projects[0].tickets[0].reporter: must be the email of a user in users or of a member of the organization",
			"projects[0].tickets[0].sprint: must be the name of a sprint of the project",
			"projects[0].tickets[0].labels[0]: must be the name of a label in labels",
			"projects[0].tickets[0].comments[1].parent: must be the position of an earlier comment of the ticket",
			"projects[0].tickets[0].time_entries[0].approved_by: required for an Approved entry",
			"projects[0].tickets[1].number: duplicate ticket number in the project (also tickets[0])",
			"projects[1].key: duplicate project key (also projects[0])",
			"projects[0].tickets[0].parent: must name another ticket, not the ticket itself",
			"projects[0].tickets[0].links[0].type: must be one of blocks, duplicates, relates_to",
			"projects[0].tickets[0].links[1].ticket: must be a ticket reference KEY-NUMBER",
		} {
			if !slices.Contains(e.Details, want) {
				t.Errorf("missing %q in %q", want, e.Details)
			}
		}
	})

	t.Run("422 wrong types are listed by path, every one", func(t *testing.T) {
		doc := smallDoc("ann@example.test")
		tk := doc["projects"].([]any)[0].(map[string]any)["tickets"].([]any)[0].(map[string]any)
		tk["number"] = "one"
		tk["title"] = 5
		doc["labels"].([]any)[0].(map[string]any)["color"] = true
		doc["exported_at"] = "yesterday"
		r := f.env.Do("POST", path, f.owner.Token, doc).Expect(t, 422)
		for _, want := range []string{"projects[0].tickets[0].number: must be an integer", "projects[0].tickets[0].title: must be a string",
			"labels[0].color: must be a string", "exported_at: must be an RFC 3339 timestamp"} {
			if !slices.Contains(r.Error().Details, want) {
				t.Errorf("missing %q in %q", want, r.Error().Details)
			}
		}
	})

	t.Run("422 missing top-level fields", func(t *testing.T) {
		r := f.env.Do("POST", path, f.owner.Token, map[string]any{}).Expect(t, 422)
		for _, want := range []string{"version: required", "source: required", "exported_at: required", "users: required",
			"workflows: required", "labels: required", "projects: required"} {
			if !slices.Contains(r.Error().Details, want) {
				t.Errorf("missing %q in %q", want, r.Error().Details)
			}
		}
		f.env.Do("POST", path, f.owner.Token, "[1,2]").Expect(t, 422)
	})

	t.Run("400 not JSON", func(t *testing.T) {
		f.env.Do("POST", path, f.owner.Token, "{not json").Expect(t, 400)
	})

	t.Run("a member of the org may be referenced without being in users", func(t *testing.T) {
		doc := smallDoc(f.owner.Email)
		doc["users"] = []any{}
		raw, _ := json.Marshal(doc)
		st := f.importInto(t, f.b, raw)
		if st.Summary.TicketsCreated != 1 || st.Summary.CommentsCreated != 2 || st.Summary.UsersCreated != 0 {
			t.Fatalf("summary %+v", st.Summary)
		}
	})
}

func jsonNum(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestImportCreatesUsersAndCapsRoles(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 1, TicketsPerProject: 1})
	admin := f.env.Register("Admin")
	f.env.AddMember(f.owner, f.b, admin, "admin")
	email := "new-" + uuid.NewString()[:8] + "@example.test"
	doc := smallDoc(email)
	doc["users"].([]any)[0].(map[string]any)["role"] = "Owner"
	raw, _ := json.Marshal(doc)
	r := f.env.Do("POST", "/api/v1/import?org_id="+f.b.String(), admin.Token, raw).Expect(t, 202)
	var res struct {
		ImportID uuid.UUID `json:"import_id"`
	}
	r.Decode(t, &res)
	if _, err := f.runner.RunAll(t.Context(), res.ImportID); err != nil {
		t.Fatal(err)
	}
	st := f.env.Do("GET", "/api/v1/imports/"+res.ImportID.String(), admin.Token, nil).Expect(t, 200).Map(t)
	if st["status"] != "completed" || st["summary"].(map[string]any)["users_created"].(float64) != 1 {
		t.Fatalf("status %v", st)
	}
	// The person is invited, not enrolled, with the role capped at Admin.
	if isMember(t, f, f.b, email) {
		t.Fatal("an import enrolled a person it named")
	}
	if role := pendingInviteRole(t, f, f.b, email); role != "admin" {
		t.Fatalf("an Admin's import invited with role %q", role)
	}
	var hash *string
	var active, placeholder bool
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT password_hash, active, placeholder FROM users WHERE email = $1`, email).Scan(&hash, &active, &placeholder); err != nil || hash != nil || !active || !placeholder {
		t.Fatalf("created user: hash %v active %v placeholder %v err %v", hash, active, placeholder, err)
	}
	var audits, events int
	_ = f.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'imported' AND entity_type = 'ticket'`, f.b).Scan(&audits)
	_ = f.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM outbox WHERE org_id = $1 AND topic LIKE 'ticket.%'`, f.b).Scan(&events)
	if audits != 1 || events != 0 {
		t.Fatalf("audit rows %d, ticket events %d", audits, events)
	}
	if !strings.Contains(string(r.Body), `"status":"running"`) {
		t.Fatalf("202 body %s", r.Body)
	}
}

// An import document holds to the rule of every JSON body: no object names
// a member twice, and names match exactly (encoding/json read "Title" as
// title, and kept the last of two); a 422 naming the member, nothing
// recorded.
func TestImportMemberNames(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{})
	path := "/api/v1/import?org_id=" + f.b.String()
	raw, err := json.Marshal(smallDoc("ann@example.test"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for edit, detail := range map[[2]string]string{
		{`"source":"test"`, `"source":"test","source":"other"`}:                                     "source: duplicate member name",
		{`"title":"One"`, `"title":"One","Title":"Two"`}:                                            `projects[0].tickets[0].Title: must be spelled "title"`,
		{`"duration_minutes":60`, `"duration_minutes":60,"Duration_Minutes":600`}:                   `projects[0].tickets[0].time_entries[0].Duration_Minutes: must be spelled "duration_minutes"`,
		{`"key":"SM"`, `"key":"SM","key":"XX"`}:                                                     "projects[0].key: duplicate member name",
		{`"body":"hi"`, `"body":"hi","extra":{"a":1,"a":2}`}:                                        "projects[0].tickets[0].comments[0].extra.a: duplicate member name",
		{`"email":"ann@example.test","role":"Member"`, `"email":"ann@example.test","ROLE":"Owner"`}: `users[0].ROLE: must be spelled "role"`,
	} {
		if !strings.Contains(doc, edit[0]) {
			t.Fatalf("the document has no %s: %s", edit[0], doc)
		}
		body := strings.Replace(doc, edit[0], edit[1], 1)
		r := f.env.Do("POST", path, f.owner.Token, body).Expect(t, 422)
		if e := r.Error(); e.Code != "VALIDATION_ERROR" || !slices.Contains(e.Details, detail) && !strings.Contains(strings.Join(e.Details, ";"), detail) {
			t.Errorf("%s: %s, want %q", edit[1], r.Body, detail)
		}
	}
	var n int
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM imports WHERE org_id = $1`, f.b).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d imports recorded (%v)", n, err)
	}
}
