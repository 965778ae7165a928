package chat_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"

	"tracker/domain/chat"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"
)

// unknownKey is the answer to a lookup or create of a key no org holds,
// with key in its place: what an org closed to a workspace must look like.
func (f *chatFixture) unknownKey(t *testing.T, team, text, key string) map[string]any {
	t.Helper()
	r := f.command(t, team, "UPROBE", strings.Replace(text, key, "QQQZ", 1))
	r["text"] = strings.ReplaceAll(r["text"].(string), "QQQZ", strings.ToUpper(key))
	return r
}

// TestClosedOrgIsNotReachedFromOtherWorkspaces: in the installation
// tenancy, a workspace connected to no org reaches an org only while the
// org accepts such workspaces and has connected none of its own; once it
// has connected one, or turned them away, a lookup from another workspace
// answers as for a key that does not exist, a create creates nothing and a
// thread reply is not queued.
func TestClosedOrgIsNotReachedFromOtherWorkspaces(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	org := f.owner.OrgID.String()
	settings := "/api/v1/orgs/" + org + "/integrations/chat/settings"
	f.mapThread(t, f.owner, f.ticket.ID, "C5", "1700000000.000100").Expect(t, 201)
	sent := 0
	reply := func(team string) map[string]any {
		sent++
		ts := fmt.Sprintf("1700000009.%06d", sent)
		return f.event(t, message("Ev"+ts, team, "UMAL", "", "", "C5", ts, "1700000000.000100", "captured?"))
	}

	// The spec's model: open to every workspace of the installation.
	if r := f.command(t, "TMAL", "UMAL", "ABC-1"); r["response_type"] != "in_channel" {
		t.Fatalf("open org lookup %v", r)
	}
	if r := reply("TMAL"); r["status"] != "queued" {
		t.Fatalf("open org reply %v", r)
	}

	closedAnswers := func(t *testing.T, how string) {
		t.Helper()
		tickets := f.count(t, `SELECT count(*) FROM tickets`)
		replies := f.count(t, `SELECT count(*) FROM outbox WHERE topic = $1`, chat.TopicReplyComment)
		for _, text := range []string{"ABC-1", "abc-1", "create ABC Mallory was here"} {
			got := f.command(t, "TMAL", "UMAL", text)
			if want := f.unknownKey(t, "TMAL", text, "ABC"); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %q answered %v, want the unknown key's %v", how, text, got, want)
			}
			if strings.Contains(got["text"].(string), "Login") {
				t.Errorf("%s: %q shows the title: %v", how, text, got)
			}
		}
		if r := reply("TMAL"); r["status"] != "ignored" {
			t.Errorf("%s: reply %v", how, r)
		}
		if n := f.count(t, `SELECT count(*) FROM tickets`); n != tickets {
			t.Errorf("%s: created %d tickets", how, n-tickets)
		}
		if n := f.count(t, `SELECT count(*) FROM outbox WHERE topic = $1`, chat.TopicReplyComment); n != replies {
			t.Errorf("%s: queued %d replies", how, n-replies)
		}
	}

	// Turned away by its admin.
	f.env.Do("PUT", settings, f.member.Token, map[string]any{"accept_unconnected_workspaces": false}).Expect(t, 403)
	f.env.Do("PUT", settings, f.outsider.Token, map[string]any{"accept_unconnected_workspaces": false}).Expect(t, 404)
	f.env.Do("PUT", settings, f.owner.Token, map[string]any{}).Expect(t, 422)
	got := f.env.Do("PUT", settings, f.owner.Token, map[string]any{"accept_unconnected_workspaces": false}).Expect(t, 200).Map(t)
	if got["accept_unconnected_workspaces"] != false || got["reachable_from_unconnected_workspaces"] != false || got["tenancy"] != "installation" {
		t.Fatalf("settings %v", got)
	}
	closedAnswers(t, "turned away")
	// Another org holding the key is the one an unconnected workspace
	// reaches: the closed org is not counted, so nothing is ambiguous.
	other := f.env.Register("Other")
	otherProject := f.projectIn(t, other.OrgID, "ABC")
	testfactory.Ticket(t, f.env.DB, projectdb.Row{ID: otherProject}, other.ID, testfactory.TicketOpts{Title: "Other org's ticket"})
	if r := f.command(t, "TMAL", "UMAL", "ABC-1"); r["response_type"] != "in_channel" || !strings.Contains(r["text"].(string), "Other org's ticket") {
		t.Fatalf("open org beside a closed one %v", r)
	}
	f.env.Do("PUT", "/api/v1/orgs/"+other.OrgID.String()+"/integrations/chat/settings", other.Token,
		map[string]any{"accept_unconnected_workspaces": false}).Expect(t, 200)

	// Open again, then closed by connecting a workspace of its own: that
	// workspace reaches it, no other does.
	f.env.Do("PUT", settings, f.owner.Token, map[string]any{"accept_unconnected_workspaces": true}).Expect(t, 200)
	if g := f.env.Do("GET", settings, f.owner.Token, nil).Expect(t, 200).Map(t); g["reachable_from_unconnected_workspaces"] != true {
		t.Fatalf("settings %v", g)
	}
	f.connect(t, f.owner, f.owner.OrgID, "TALICE")
	if g := f.env.Do("GET", settings, f.owner.Token, nil).Expect(t, 200).Map(t); g["accept_unconnected_workspaces"] != true ||
		g["reachable_from_unconnected_workspaces"] != false {
		t.Fatalf("settings with a workspace %v", g)
	}
	closedAnswers(t, "connected its own")
	if r := f.command(t, "TALICE", "UALICE", "ABC-1"); r["response_type"] != "in_channel" {
		t.Fatalf("own workspace lookup %v", r)
	}
	if r := reply("TALICE"); r["status"] != "queued" {
		t.Fatalf("own workspace reply %v", r)
	}
	f.env.Do("GET", settings, f.member.Token, nil).Expect(t, 403)
	f.env.Do("GET", settings, f.outsider.Token, nil).Expect(t, 404)
	if a := f.env.Audit(t, "organization", f.owner.OrgID); !hasAction(a, "chat_settings_updated", 2) {
		t.Fatalf("audit %+v", a)
	}
}

// TestConnectedTenancyAnswersOnlyConnectedWorkspaces: in the connected
// tenancy a workspace connected to no org is told so, whatever it asks,
// and nothing is read or written for it; a connected one works as before.
func TestConnectedTenancyAnswersOnlyConnectedWorkspaces(t *testing.T) {
	t.Parallel()
	f := newChatIn(t, signingSecret, chat.TenancyConnected)
	f.slack.AddUser("UANY", f.member.Email, "Any")
	f.mapThread(t, f.owner, f.ticket.ID, "C5", "1700000000.000100").Expect(t, 201)
	before := f.count(t, `SELECT (SELECT count(*) FROM tickets) + (SELECT count(*) FROM outbox) + (SELECT count(*) FROM chat_identities)
		+ (SELECT count(*) FROM chat_events) + (SELECT count(*) FROM audit_log)`)
	for _, text := range []string{"ABC-1", "create ABC From nowhere", "help", "", "nonsense words"} {
		r := f.command(t, "TNONE", "UANY", text)
		if r["response_type"] != "ephemeral" || r["text"] != chat.NotConnected || r["blocks"] != nil {
			t.Errorf("%q: %v", text, r)
		}
	}
	if r := f.event(t, message("Ev1", "TNONE", "UANY", "", "", "C5", "1700000001.000100", "1700000000.000100", "hi")); r["status"] != "ignored" ||
		r["reason"] != "this workspace is not connected to an organization" {
		t.Fatalf("event %v", r)
	}
	after := f.count(t, `SELECT (SELECT count(*) FROM tickets) + (SELECT count(*) FROM outbox) + (SELECT count(*) FROM chat_identities)
		+ (SELECT count(*) FROM chat_events) + (SELECT count(*) FROM audit_log)`)
	if after != before || len(f.slack.Lookups()) != 0 {
		t.Fatalf("an unconnected workspace wrote %d rows, made %d users.info calls", after-before, len(f.slack.Lookups()))
	}
	// The url_verification handshake names no workspace: still answered.
	if r := f.event(t, []byte(`{"type":"url_verification","challenge":"c1"}`)); r["challenge"] != "c1" {
		t.Fatalf("url_verification %v", r)
	}

	f.linkT1(t)
	if r := f.command(t, "T1", "UMEMBER", "ABC-1"); r["response_type"] != "in_channel" {
		t.Fatalf("connected lookup %v", r)
	}
	if r := f.event(t, message("Ev2", "T1", "UMEMBER", "", "", "C5", "1700000002.000100", "1700000000.000100", "hi")); r["status"] != "queued" {
		t.Fatalf("connected reply %v", r)
	}
	got := f.env.Do("GET", "/api/v1/orgs/"+f.owner.OrgID.String()+"/integrations/chat/settings", f.owner.Token, nil).Expect(t, 200).Map(t)
	if got["tenancy"] != "connected" || got["accept_unconnected_workspaces"] != true || got["reachable_from_unconnected_workspaces"] != false {
		t.Fatalf("settings %v", got)
	}
}

// TestThreadMappingsArePerOrg: two orgs map the same thread without a
// conflict; a reply from each org's workspace becomes a comment job in
// that org only, whoever mapped the thread first; a workspace connected to
// no org finds the thread ambiguous while both orgs are open to it.
func TestThreadMappingsArePerOrg(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	mallory := f.outsider
	malloryTicket := testfactory.Ticket(t, f.env.DB, projectdb.Row{ID: f.projectIn(t, mallory.OrgID, "MAL")}, mallory.ID,
		testfactory.TicketOpts{Title: "Decoy"})
	// Mallory maps the thread first; Alice's mapping is neither blocked nor
	// captured.
	f.mapThread(t, mallory, malloryTicket.ID, "C5", "1700000000.000100").Expect(t, 201)
	f.mapThread(t, f.owner, f.ticket.ID, "C5", "1700000000.000100").Expect(t, 201)
	f.mapThread(t, f.owner, f.ticket.ID, "C5", "1700000000.000100").Expect(t, 409)
	f.mapThread(t, mallory, malloryTicket.ID, "C5", "1700000000.000100").Expect(t, 409)

	reply := func(id, team string) map[string]any {
		return f.event(t, message(id, team, "U1", "", "", "C5", "1700000005."+id[2:], "1700000000.000100", "reply"))
	}
	if r := reply("Ev100", "TNONE"); r["status"] != "ignored" || !strings.Contains(r["reason"].(string), "several organizations") {
		t.Fatalf("ambiguous thread %v", r)
	}
	f.connect(t, f.owner, f.owner.OrgID, "TALICE")
	f.connect(t, mallory, mallory.OrgID, "TMAL")
	for _, c := range []struct {
		team, event string
		org         uuid.UUID
		ticket      uuid.UUID
	}{{"TALICE", "Ev101", f.owner.OrgID, f.ticket.ID}, {"TMAL", "Ev102", mallory.OrgID, malloryTicket.ID}} {
		if r := reply(c.event, c.team); r["status"] != "queued" {
			t.Fatalf("%s reply %v", c.team, r)
		}
		jobs := f.env.Outbox(t, c.org, chat.TopicReplyComment)
		if len(jobs) != 1 || jobs[0]["event_id"] != c.event || jobs[0]["ticket_id"] != c.ticket.String() {
			t.Fatalf("%s's reply queued as %v", c.team, jobs)
		}
	}
	if r := reply("Ev103", "TNONE"); r["status"] != "ignored" || r["reason"] != "thread not mapped to a ticket" {
		t.Fatalf("closed orgs' thread %v", r)
	}
}

// hasAction says whether audit holds n rows of action.
func hasAction(audit []apitest.AuditRow, action string, n int) bool {
	got := 0
	for _, a := range audit {
		if a.Action == action {
			got++
		}
	}
	return got == n
}
