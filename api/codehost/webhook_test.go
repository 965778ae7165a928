package codehost_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	chdomain "tracker/domain/codehost"
)

func TestPullRequestMovesEveryWay(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, f.owner.Token, f.project, "Backlog")
	r := ref(tk, "ABC")
	steps := []struct {
		action string
		merged bool
		want   string
	}{
		{"opened", false, "InReview"},
		{"closed", false, "InProgress"},
		{"reopened", false, "InReview"},
		{"closed", true, "Done"},
	}
	prev := "Backlog"
	for i, s := range steps {
		res := f.send(t, delivery{id: fmt.Sprintf("d-%d", i), body: pr(s.action, r+" login", "main", s.merged, "acme/app")}).Expect(t, 200)
		out := decode(t, res)
		if out.Status != "processed" || len(out.Transitions) != 1 || out.Transitions[0].OldStatus != prev ||
			out.Transitions[0].NewStatus != s.want || out.Transitions[0].TicketRef != r {
			t.Fatalf("%s merged=%v: %s", s.action, s.merged, res.Body)
		}
		if got := f.status(t, tk.ID); got != s.want {
			t.Fatalf("status %s, want %s", got, s.want)
		}
		prev = s.want
	}
	// Each move is a normal transition: audit row by the integration with
	// the pull request in via, a ticket.status_changed event, an activity entry.
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'status_changed' AND actor_id = $2
		AND via->>'pull_request_url' = 'https://code.example/acme/app/pull/7' AND via->>'sender' = 'octo'`, tk.ID, chdomain.UserID); n != 4 {
		t.Fatalf("audit rows %d", n)
	}
	if n := f.count(t, `SELECT count(*) FROM outbox WHERE topic = 'ticket.status_changed' AND payload->'data'->>'id' = $1`, tk.ID.String()); n != 4 {
		t.Fatalf("events %d", n)
	}
	var feed struct {
		Items []struct {
			Type    string
			Actor   string
			Payload struct {
				Via map[string]any
			}
		}
	}
	f.env.Do("GET", "/api/v1/tickets/"+tk.ID.String()+"/activity", f.owner.Token, nil).Expect(t, 200).Decode(t, &feed)
	last := feed.Items[len(feed.Items)-1]
	if last.Type != "status_changed" || last.Actor != chdomain.UserID.String() || last.Payload.Via["integration"] != "codehost" {
		t.Fatalf("activity %+v", last)
	}
	// The integration's user exists and nobody can sign in as it.
	var active bool
	f.env.ScanRow(t, &active, `SELECT active FROM users WHERE id = $1 AND password_hash IS NULL`, chdomain.UserID)
	if active {
		t.Fatal("integration user must be inactive")
	}
}

func TestRefsFromTitleAndBranch(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a := f.ticket(t, f.owner.Token, f.project, "Todo")
	b := f.ticket(t, f.owner.Token, f.project, "Todo")
	c := f.ticket(t, f.owner.Token, f.project, "InReview")
	title := fmt.Sprintf("Fix abc-%d and %s", a.TicketNumber, ref(b, "ABC"))
	branch := fmt.Sprintf("feature/ABC-%d-x-abc-%d", a.TicketNumber, c.TicketNumber) // a again (dedup), then c
	out := decode(t, f.send(t, delivery{body: pr("opened", title+" NOPE-1", branch, false, "acme/app")}).Expect(t, 200))
	want := []string{ref(a, "ABC"), ref(b, "ABC"), "NOPE-1", ref(c, "ABC")}
	if strings.Join(out.TicketRefsFound, ",") != strings.Join(want, ",") {
		t.Fatalf("refs %v, want %v", out.TicketRefsFound, want)
	}
	if len(out.Transitions) != 3 || f.status(t, a.ID) != "InReview" || f.status(t, b.ID) != "InReview" {
		t.Fatalf("transitions %+v", out.Transitions)
	}
	// Already in the target status: reported unchanged, nothing recorded.
	if tr := out.Transitions[2]; tr.TicketRef != ref(c, "ABC") || tr.OldStatus != "InReview" || tr.NewStatus != "InReview" {
		t.Fatalf("no-op %+v", tr)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'status_changed'`, c.ID); n != 0 {
		t.Fatalf("no-op recorded %d rows", n)
	}
	if len(out.Skipped) != 1 || out.Skipped[0].TicketRef != "NOPE-1" || !strings.Contains(out.Skipped[0].Reason, "no project") {
		t.Fatalf("skipped %+v", out.Skipped)
	}
	// A missing number in a known project is skipped too.
	out = decode(t, f.send(t, delivery{body: pr("opened", "ABC-999", "", false, "acme/app")}).Expect(t, 200))
	if len(out.Skipped) != 1 || out.Skipped[0].Reason != "no ticket ABC-999" {
		t.Fatalf("skipped %+v", out.Skipped)
	}
}

func TestEnforcementModes(t *testing.T) {
	t.Parallel()
	f := setup(t)
	statuses := [][2]string{{"Backlog", "todo"}, {"In Progress", "in_progress"}, {"In Review", "in_progress"}, {"Done", "done"}}
	listed := [][2]string{{"In Progress", "In Review"}, {"In Review", "Done"}}

	strict := f.projectIn(t, f.owner.OrgID, "STR")
	f.useWorkflow(t, strict, "strict", statuses, listed)
	s1 := f.ticket(t, f.owner.Token, strict, "Backlog")
	s2 := f.ticket(t, f.owner.Token, strict, "In Progress")
	warn := f.projectIn(t, f.owner.OrgID, "WRN")
	f.useWorkflow(t, warn, "warn", statuses, listed)
	w1 := f.ticket(t, f.owner.Token, warn, "Backlog")

	title := fmt.Sprintf("%s %s %s", ref(s1, "STR"), ref(s2, "STR"), ref(w1, "WRN"))
	out := decode(t, f.send(t, delivery{body: pr("opened", title, "", false, "acme/app")}).Expect(t, 200))
	// strict + unlisted: skipped with the workflow's reason, unchanged.
	if len(out.Skipped) != 1 || out.Skipped[0].TicketRef != ref(s1, "STR") ||
		!strings.Contains(out.Skipped[0].Reason, "transition from Backlog to In Review is not allowed") || f.status(t, s1.ID) != "Backlog" {
		t.Fatalf("strict: %+v", out.Skipped)
	}
	// strict + listed: moved; warn + unlisted: moved with the warning.
	if len(out.Transitions) != 2 || out.Transitions[0].NewStatus != "In Review" || out.Transitions[0].Warning != "" ||
		out.Transitions[1].TicketRef != ref(w1, "WRN") || out.Transitions[1].NewStatus != "In Review" ||
		!strings.Contains(out.Transitions[1].Warning, "not listed") {
		t.Fatalf("transitions %+v", out.Transitions)
	}
}

func TestStatusMatchingAndCategoryFallback(t *testing.T) {
	t.Parallel()
	f := setup(t)
	loose := f.projectIn(t, f.owner.OrgID, "LSE")
	f.useWorkflow(t, loose, "none", [][2]string{{"todo", "todo"}, {"in_review", "in_progress"}, {"DONE", "done"}}, nil)
	cat := f.projectIn(t, f.owner.OrgID, "CAT")
	f.useWorkflow(t, cat, "none", [][2]string{{"Open", "todo"}, {"Doing", "in_progress"}, {"Checking", "in_progress"}, {"Shipped", "done"}}, nil)
	none := f.projectIn(t, f.owner.OrgID, "NON")
	f.useWorkflow(t, none, "none", [][2]string{{"Open", "todo"}, {"Doing", "in_progress"}}, nil)
	l := f.ticket(t, f.owner.Token, loose, "todo")
	c := f.ticket(t, f.owner.Token, cat, "Open")
	n := f.ticket(t, f.owner.Token, none, "Open")
	title := fmt.Sprintf("%s %s %s", ref(l, "LSE"), ref(c, "CAT"), ref(n, "NON"))

	out := decode(t, f.send(t, delivery{body: pr("opened", title, "", false, "acme/app")}).Expect(t, 200))
	if len(out.Transitions) != 3 || out.Transitions[0].NewStatus != "in_review" || out.Transitions[1].NewStatus != "Doing" ||
		out.Transitions[2].NewStatus != "Doing" {
		t.Fatalf("opened: %+v", out.Transitions)
	}
	out = decode(t, f.send(t, delivery{body: pr("closed", title, "", true, "acme/app")}).Expect(t, 200))
	if len(out.Transitions) != 2 || out.Transitions[0].NewStatus != "DONE" || out.Transitions[1].NewStatus != "Shipped" {
		t.Fatalf("merged: %+v", out.Transitions)
	}
	if len(out.Skipped) != 1 || out.Skipped[0].TicketRef != ref(n, "NON") || !strings.Contains(out.Skipped[0].Reason, "has no status for Done") {
		t.Fatalf("skipped: %+v", out.Skipped)
	}
}

func TestEventsAndBodies(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, f.owner.Token, f.project, "Backlog")
	if m := f.send(t, delivery{event: "ping", body: []byte(`{"zen":"x"}`)}).Expect(t, 200).Map(t); m["status"] != "ok" {
		t.Fatalf("ping %v", m)
	}
	if m := f.send(t, delivery{event: "push", body: []byte(`{}`)}).Expect(t, 200).Map(t); m["status"] != "ignored" {
		t.Fatalf("push %v", m)
	}
	if m := f.send(t, delivery{body: pr("labeled", ref(tk, "ABC"), "", false, "a/b")}).Expect(t, 200).Map(t); m["status"] != "ignored" {
		t.Fatalf("labeled %v", m)
	}
	r := f.send(t, delivery{body: []byte(`{"action": "opened", `)}).Expect(t, 400)
	if r.ErrorCode() != "BAD_REQUEST" {
		t.Fatalf("malformed: %s", r.Body)
	}
	f.send(t, delivery{body: []byte(`{"action": "opened"}`)}).Expect(t, 400)
	f.send(t, delivery{body: []byte(`[1,2]`)}).Expect(t, 400)
	if f.status(t, tk.ID) != "Backlog" {
		t.Fatal("ticket moved")
	}
}

func TestBadSignaturesChangeNothing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, f.owner.Token, f.project, "Backlog")
	body := pr("opened", ref(tk, "ABC"), "", false, "acme/app")
	good := chdomain.Sign(globalSecret, body)
	oneByte := append([]byte(nil), body...)
	oneByte[len(oneByte)-2] ^= 0x01
	flipped := []byte(good)
	if flipped[len(flipped)-1] == 'a' {
		flipped[len(flipped)-1] = 'b'
	} else {
		flipped[len(flipped)-1] = 'a'
	}
	cases := map[string]delivery{
		"missing header":     {body: body, noSignature: true},
		"wrong secret":       {body: body, secret: "not-the-secret"},
		"body byte changed":  {body: oneByte, signature: good},
		"signature changed":  {body: body, signature: string(flipped)},
		"no prefix":          {body: body, signature: strings.TrimPrefix(good, "sha256=")},
		"not hex":            {body: body, signature: "sha256=zz"},
		"ping unsigned":      {event: "ping", body: []byte(`{}`), noSignature: true},
		"malformed unsigned": {body: []byte(`{`), noSignature: true},
	}
	for name, d := range cases {
		r := f.send(t, d)
		if r.Status != 401 || r.ErrorCode() != "unauthorized" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	if f.status(t, tk.ID) != "Backlog" || f.count(t, `SELECT count(*) FROM codehost_deliveries`) != 0 {
		t.Fatal("a refused delivery changed something")
	}
	// No secret configured: every delivery is refused, even one signed with
	// the empty key.
	off := setupWith(t, "")
	tk2 := off.ticket(t, off.owner.Token, off.project, "Backlog")
	b2 := pr("opened", ref(tk2, "ABC"), "", false, "acme/app")
	r := off.send(t, delivery{body: b2, signature: chdomain.Sign("", b2)})
	if r.Status != 401 || off.status(t, tk2.ID) != "Backlog" {
		t.Fatalf("integration off: %d %s", r.Status, r.Body)
	}
}

func TestRedeliveryChangesNothingTwice(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, f.owner.Token, f.project, "Backlog")
	body := pr("opened", ref(tk, "ABC"), "", false, "acme/app")
	first := decode(t, f.send(t, delivery{id: "72d3162e-cc78", body: body}).Expect(t, 200))
	// Someone moves it back; the redelivery must not move it again.
	f.env.Do("POST", "/api/v1/tickets/"+tk.ID.String()+"/transition", f.owner.Token, map[string]any{"to_status": "Todo"}).Expect(t, 200)
	again := decode(t, f.send(t, delivery{id: "72d3162e-cc78", body: body}).Expect(t, 200))
	if again.Status != "duplicate" || len(again.Transitions) != 1 || again.Transitions[0].NewStatus != first.Transitions[0].NewStatus {
		t.Fatalf("redelivery %+v", again)
	}
	if f.status(t, tk.ID) != "Todo" {
		t.Fatal("redelivery moved the ticket again")
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND actor_id = $2`, tk.ID, chdomain.UserID); n != 1 {
		t.Fatalf("audit rows by the integration: %d", n)
	}
	// A new delivery id is a new event.
	f.send(t, delivery{id: "other", body: body}).Expect(t, 200)
	if f.status(t, tk.ID) != "InReview" {
		t.Fatal("a new delivery must act")
	}
	// Too long an id is refused before anything happens.
	f.send(t, delivery{id: strings.Repeat("x", 201), body: body}).Expect(t, 400)
}

func TestAmbiguousKeyAcrossOrgs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	mine := f.ticket(t, f.owner.Token, f.project, "Backlog")
	theirs := f.projectIn(t, f.outside.OrgID, "ABC")
	other := f.ticket(t, f.outside.Token, theirs, "Backlog")
	if mine.TicketNumber != other.TicketNumber {
		t.Fatal("fixture: numbers differ")
	}
	body := pr("opened", ref(mine, "ABC"), "", false, "acme/app")
	out := decode(t, f.send(t, delivery{body: body}).Expect(t, 200))
	if len(out.Transitions) != 0 || len(out.Skipped) != 1 || !strings.Contains(out.Skipped[0].Reason, "ambiguous") {
		t.Fatalf("ambiguous: %+v", out)
	}
	if f.status(t, mine.ID) != "Backlog" || f.status(t, other.ID) != "Backlog" {
		t.Fatal("an ambiguous key moved a ticket")
	}
	// A connection resolves it, through the connection's own URL only: the
	// service-wide URL stays ambiguous (listing the repository claims nothing).
	m := f.env.Do("POST", "/api/v1/orgs/"+f.owner.OrgID.String()+"/integrations/codehost", f.owner.Token,
		map[string]any{"repositories": []string{"Acme/App"}}).Expect(t, 201).Map(t)
	out = decode(t, f.send(t, delivery{body: body}).Expect(t, 200))
	if len(out.Transitions) != 0 || len(out.Skipped) != 1 || !strings.Contains(out.Skipped[0].Reason, "ambiguous") {
		t.Fatalf("service-wide after connecting: %+v", out)
	}
	out = decode(t, f.send(t, delivery{path: "/api/v1/integrations/codehost/webhook/" + m["id"].(string),
		secret: m["secret"].(string), body: body}).Expect(t, 200))
	if len(out.Transitions) != 1 || f.status(t, mine.ID) != "InReview" || f.status(t, other.ID) != "Backlog" {
		t.Fatalf("connected: %+v", out)
	}
}

func TestConnections(t *testing.T) {
	t.Parallel()
	f := setup(t)
	org := f.owner.OrgID.String()
	base := "/api/v1/orgs/" + org + "/integrations/codehost"
	// Admin only; a non-member learns nothing.
	f.env.Do("POST", base, f.member.Token, map[string]any{}).Expect(t, 403)
	f.env.Do("POST", base, f.outside.Token, map[string]any{}).Expect(t, 404)
	f.env.Do("POST", base, f.owner.Token, map[string]any{"repositories": []string{"not a repo"}}).Expect(t, 422)

	var conn struct {
		ID, Secret, WebhookURL string `json:"-"`
	}
	m := f.env.Do("POST", base, f.owner.Token, map[string]any{"repositories": []string{"acme/app"}}).Expect(t, 201).Map(t)
	conn.ID, conn.Secret, conn.WebhookURL = m["id"].(string), m["secret"].(string), m["webhook_url"].(string)
	if !strings.HasPrefix(conn.Secret, "whcs_") || conn.WebhookURL != "http://tracker.test/api/v1/integrations/codehost/webhook/"+conn.ID {
		t.Fatalf("created %v", m)
	}
	// Shown once: lists never carry it; stored encrypted.
	list := f.env.Do("GET", base, f.owner.Token, nil).Expect(t, 200)
	if strings.Contains(string(list.Body), conn.Secret) || !strings.Contains(string(list.Body), conn.ID) {
		t.Fatalf("list %s", list.Body)
	}
	f.env.Do("GET", base, f.member.Token, nil).Expect(t, 403)
	var enc []byte
	f.env.ScanRow(t, &enc, `SELECT secret_enc FROM codehost_connections WHERE id = $1`, conn.ID)
	if strings.Contains(string(enc), conn.Secret) {
		t.Fatal("secret stored in clear")
	}

	// The key exists in both orgs: the connection's URL only ever touches its org.
	mine := f.ticket(t, f.owner.Token, f.project, "Backlog")
	theirs := f.projectIn(t, f.outside.OrgID, "ABC")
	other := f.ticket(t, f.outside.Token, theirs, "Backlog")
	path := "/api/v1/integrations/codehost/webhook/" + conn.ID
	body := pr("opened", ref(mine, "ABC"), "", false, "acme/app")
	out := decode(t, f.send(t, delivery{path: path, secret: conn.Secret, id: "c1", body: body}).Expect(t, 200))
	if len(out.Transitions) != 1 || f.status(t, mine.ID) != "InReview" || f.status(t, other.ID) != "Backlog" {
		t.Fatalf("connection delivery %+v", out)
	}
	// The same delivery id on another URL is another scope.
	f.env.Exec(t, `UPDATE tickets SET status = 'Backlog' WHERE id = $1`, mine.ID)
	// The service-wide secret does not open a connection's URL, nor does a
	// made-up connection id.
	f.send(t, delivery{path: path, body: body}).Expect(t, 401)
	f.send(t, delivery{path: "/api/v1/integrations/codehost/webhook/" + uuidString(), secret: conn.Secret, body: body}).Expect(t, 401)
	f.send(t, delivery{path: "/api/v1/integrations/codehost/webhook/not-a-uuid", secret: conn.Secret, body: body}).Expect(t, 401)
	// The allowlist: another repository is ignored.
	out = decode(t, f.send(t, delivery{path: path, secret: conn.Secret, body: pr("opened", ref(mine, "ABC"), "", false, "evil/fork")}).Expect(t, 200))
	if out.Status != "ignored" || f.status(t, mine.ID) != "Backlog" {
		t.Fatalf("allowlist %+v", out)
	}
	// Deleting the connection closes its URL at once.
	f.env.Do("DELETE", base+"/"+conn.ID, f.member.Token, nil).Expect(t, 403)
	f.env.Do("DELETE", base+"/"+conn.ID, f.outside.Token, nil).Expect(t, 404)
	f.env.Do("DELETE", base+"/"+conn.ID, f.owner.Token, nil).Expect(t, 204)
	f.send(t, delivery{path: path, secret: conn.Secret, body: body}).Expect(t, 401)
	if f.status(t, mine.ID) != "Backlog" {
		t.Fatal("deleted connection acted")
	}
	var n int
	f.env.ScanRow(t, &n, `SELECT count(*) FROM audit_log WHERE entity_type = 'codehost_connection' AND changes::text LIKE '%whcs_%'`)
	if n != 0 {
		t.Fatal("secret in the audit trail")
	}
	_ = json.Valid
}

// A signed payload whose object names a member twice (one reader acts on
// "labeled", another on "opened") or a field in another case is refused
// like any JSON body: 422, no ticket moved.
func TestAmbiguousNamesMoveNothing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, f.owner.Token, f.project, "Backlog")
	body := string(pr("opened", ref(tk, "ABC"), "", false, "a/b"))
	for _, b := range []string{`{"action":"labeled",` + body[1:], strings.Replace(body, `"title":`, `"Title":"nothing","title":`, 1)} {
		if r := f.send(t, delivery{body: []byte(b)}); r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", b, r.Status, r.Body)
		}
	}
	if f.status(t, tk.ID) != "Backlog" {
		t.Fatal("ticket moved")
	}
}
