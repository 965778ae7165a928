package feed_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/testfactory"
)

// TestFeedCarriesTheWebhookEvents: ticket creates, updates, status changes
// and comments made through the API come out of the feed oldest first,
// with the outbox rows' ids (the webhook event ids) and their data and
// changes exactly as the webhook body has them.
func TestFeedCarriesTheWebhookEvents(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := createTicket(t, w, w.Member.Token, w.Project.ID, "Checkout fails")
	w.Env.Do("PATCH", "/api/v1/tickets/"+id.String(), w.Member.Token, map[string]any{"title": "Checkout fails on Safari"}).Expect(t, 200)
	w.Env.Do("POST", "/api/v1/tickets/"+id.String()+"/comments", w.Member.Token, map[string]any{"body": "seen it"}).Expect(t, 201)

	got, _ := drain(t, w, w.Admin.Token, "", 100, "", 3)
	var types []string
	for _, it := range got {
		types = append(types, it.Type)
	}
	if fmt.Sprint(types) != "[ticket.created ticket.updated comment.created]" {
		t.Fatalf("types %v", types)
	}
	for _, it := range got {
		// The webhook body is the outbox row's payload (activities/webhook
		// posts it compacted).
		var body struct {
			ID      uuid.UUID       `json:"id"`
			Data    json.RawMessage `json:"data"`
			Changes json.RawMessage `json:"changes"`
		}
		raw := apitest.Scalar[[]byte](t, w.Env, `SELECT payload FROM outbox WHERE id = $1 AND org_id = $2`, it.ID, w.Owner.OrgID)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(t, body.Data, it.Data) || !jsonEqual(t, body.Changes, it.Changes) {
			t.Errorf("%s: feed data %s changes %s, webhook body data %s changes %s", it.Type, it.Data, it.Changes, body.Data, body.Changes)
		}
	}
	if !bytes.Contains(got[1].Changes, []byte(`"Checkout fails on Safari"`)) || len(got[0].Changes) != 0 {
		t.Errorf("changes: created %s, updated %s", got[0].Changes, got[1].Changes)
	}
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	t.Helper()
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b) || string(a) == "null" || string(b) == "null"
	}
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

// TestFeedAccess: an Admin (and the Owner) reads the feed, so does an
// Admin's read key; a Member, Viewer or Reporter is refused naming Admin,
// whatever key they hold; a non-member, or a key of another org, finds
// nothing. A key restricted to a project reads that project's events only,
// comments included.
func TestFeedAccess(t *testing.T) {
	t.Parallel()
	w := setup(t)
	other := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{})
	mine := createTicket(t, w, w.Member.Token, w.Project.ID, "in the key's project")
	theirs := createTicket(t, w, w.Member.Token, other.ID, "in the other project")
	w.Env.Do("POST", "/api/v1/tickets/"+theirs.String()+"/comments", w.Member.Token, map[string]any{"body": "other"}).Expect(t, 201)
	w.Env.Do("POST", "/api/v1/tickets/"+mine.String()+"/comments", w.Member.Token, map[string]any{"body": "mine"}).Expect(t, 201)

	for _, tok := range []string{w.Admin.Token, w.Owner.Token, w.Env.APIKey(w.Admin, []string{"read"})} {
		if got, _ := drain(t, w, tok, "", 100, "", 4); len(got) != 4 {
			t.Errorf("admin sees %d events, want 4", len(got))
		}
	}
	for _, tok := range []string{w.Member.Token, w.Viewer.Token, w.Reporter.Token,
		w.Env.APIKey(w.Member, []string{"admin"}), w.Env.APIKey(w.Viewer, []string{"read"})} {
		r := apitest.ExpectCode(t, w.Env.Do("GET", feedURL(w, nil), tok, nil), 403, "FORBIDDEN")
		if !bytes.Contains(r.Body, []byte("Admin")) {
			t.Errorf("403 does not name the role: %s", r.Body)
		}
	}
	apitest.ExpectCode(t, w.Env.Do("GET", feedURL(w, nil), w.Outsider.Token, nil), 404, "not_found")
	elsewhere := w.Env.APIKeyIn(w.Outsider, w.Outsider.OrgID, []string{"read"})
	apitest.ExpectCode(t, w.Env.Do("GET", feedURL(w, nil), elsewhere, nil), 404, "not_found")

	restricted := w.Env.APIKey(w.Admin, []string{"read"}, w.Project.ID)
	got, _ := drain(t, w, restricted, "", 100, "", 2)
	for _, it := range got {
		if bytes.Contains(it.Data, []byte(theirs.String())) || bytes.Contains(it.Data, []byte(other.ID.String())) {
			t.Errorf("restricted key sees %s %s", it.Type, it.Data)
		}
	}
	if len(got) != 2 {
		t.Errorf("restricted key sees %d events, want its project's 2", len(got))
	}
	// Nor can it learn the other project's events by naming one.
	all, _ := drain(t, w, w.Admin.Token, "", 100, "", 4)
	for _, it := range all {
		if bytes.Contains(it.Data, []byte(theirs.String())) {
			apitest.ExpectCode(t, w.Env.Do("GET", feedURL(w, url.Values{"after": {it.ID.String()}}), restricted, nil), 422, "VALIDATION_ERROR")
		}
	}
}

// TestFeedValidation: unknown types, a malformed or foreign `after` and a
// bad limit are 422.
func TestFeedValidation(t *testing.T) {
	t.Parallel()
	w := setup(t)
	createTicket(t, w, w.Member.Token, w.Project.ID, "one")
	for _, q := range []url.Values{
		{"types": {"ticket.created,ticket.deleted"}},
		{"types": {"TICKET.CREATED"}},
		{"after": {"not-a-cursor"}},
		{"after": {uuid.NewString()}},
		{"after": {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}},
		{"limit": {"0"}},
		{"stream": {"maybe"}},
		{"after": {"\x00"}},
		{"after": {"\xff\xfe"}},
		{"types": {"\x00"}},
		{"cursor": {"AAAAAAAAAAAAAAAAAAAAAA"}},
	} {
		apitest.ExpectCode(t, w.Env.Do("GET", feedURL(w, q), w.Admin.Token, nil), 422, "VALIDATION_ERROR")
	}
	// A well-formed cursor past everything is a position like any other.
	p := read(t, w, w.Admin.Token, url.Values{"after": {"________________________________"}})
	if len(p.Items) != 0 || p.NextCursor == nil {
		t.Errorf("cursor past the end: %+v", p)
	}
	// Another org's event id is unknown here.
	foreign := testfactory.Project(t, w.Env.DB, w.Outsider.OrgID, testfactory.ProjectOpts{})
	createTicket(t, w, w.Outsider.Token, foreign.ID, "elsewhere")
	ev := apitest.Scalar[uuid.UUID](t, w.Env, `SELECT id FROM outbox WHERE org_id = $1 AND topic = 'ticket.created'`, w.Outsider.OrgID)
	apitest.ExpectCode(t, w.Env.Do("GET", feedURL(w, url.Values{"after": {ev.String()}}), w.Admin.Token, nil), 422, "VALIDATION_ERROR")
}
