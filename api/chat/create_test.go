package chat_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/chat"
)

// TestCreateAsLinkedMembers: /ticket create as a linked Member creates the
// ticket as them, answers its blocks and queues the follow-up; a Viewer,
// an unlinked chat user and a missing title are refused without a ticket.
func TestCreateAsLinkedMembers(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	f.linkT1(t)

	// create: as the linked member, answered with the same blocks, and the
	// follow-up queued through the outbox.
	r := f.command(t, "T1", "UMEMBER", "create abc Export  fails on <Safari>")
	var id uuid.UUID
	var reporter uuid.UUID
	var title string
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT id, reporter_id, title FROM tickets WHERE project_id = $1 AND ticket_number = 2`,
		f.project).Scan(&id, &reporter, &title); err != nil {
		t.Fatal(err)
	}
	if reporter != f.member.ID || title != "Export  fails on <Safari>" {
		t.Fatalf("created by %v: %q", reporter, title)
	}
	blocks(t, r, "Created *ABC-2* Export  fails on &lt;Safari&gt;", []string{"*Status*\nBacklog", "*Priority*\nNone",
		"*Assignee*\nUnassigned", "*Link*\n<http://tracker.test/api/v1/tickets/" + id.String() + "|Open ABC-2>"})
	var job chat.FollowupJob
	var payload []byte
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT payload::text::bytea FROM outbox WHERE topic = $1`, chat.TopicCommandFollowup).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(payload, &job); err != nil || job.TicketID != id || job.ChannelID != "C100" ||
		job.ResponseURL != f.slack.URL+"/commands/1/2" || job.OrgID != f.owner.OrgID || job.TeamID != "T1" {
		t.Fatalf("job %+v %v", job, err)
	}

	// A Viewer may not create; an unlinked chat user is told to link
	// their account.
	before := f.count(t, `SELECT count(*) FROM tickets`)
	r = f.command(t, "T1", "UVIEWER", "create ABC nope")
	if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "Could not create the ticket") {
		t.Fatalf("viewer create %v", r)
	}
	r = f.command(t, "T1", "USTRANGER", "create ABC nope")
	if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "Link your account") {
		t.Fatalf("unlinked create %v", r)
	}
	if r := f.command(t, "T1", "UMEMBER", "create ABC"); r["response_type"] != "ephemeral" {
		t.Fatalf("create without title %v", r)
	}
	if after := f.count(t, `SELECT count(*) FROM tickets`); after != before {
		t.Fatalf("refused creates made tickets: %d → %d", before, after)
	}
}

func TestCommandLinksByEmailFromUsersInfo(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	f.connect(t, f.owner, f.owner.OrgID, "T2")
	installs := len(f.slack.Lookups()) // the install read its approver
	f.slack.AddUser("UBYMAIL", strings.ToUpper(f.member.Email), "")
	f.command(t, "T2", "UBYMAIL", "create ABC Linked by email")
	var reporter uuid.UUID
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT reporter_id FROM tickets WHERE title = 'Linked by email'`).Scan(&reporter); err != nil || reporter != f.member.ID {
		t.Fatalf("reporter %v %v", reporter, err)
	}
	me := f.env.Do("GET", "/api/v1/integrations/chat/identities/me?org_id="+f.owner.OrgID.String(), f.member.Token, nil).Expect(t, 200).Map(t)
	if me["slack_user_id"] != "UBYMAIL" {
		t.Fatalf("identity %v", me)
	}
	if calls := f.slack.Lookups()[installs:]; len(calls) != 1 || calls[0].Get("user") != "UBYMAIL" {
		t.Fatalf("users.info calls %v", calls)
	}
}

func TestCommandsWithoutWorkspace(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	// One org holds ABC: the integration user creates there, recording the
	// chat user on the audit row.
	f.command(t, "TNONE", "UANY", "create ABC From chat")
	var reporter uuid.UUID
	var via []byte
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT t.reporter_id, a.via::text::bytea FROM tickets t
		JOIN audit_log a ON a.entity_id = t.id AND a.action = 'created' WHERE t.title = 'From chat'`).Scan(&reporter, &via); err != nil {
		t.Fatal(err)
	}
	if reporter != chat.UserID || !strings.Contains(string(via), `"chat_user_id": "UANY"`) && !strings.Contains(string(via), `"chat_user_id":"UANY"`) {
		t.Fatalf("reporter %v via %s", reporter, via)
	}
	blocks(t, f.command(t, "TNONE", "UANY", "ABC-1"), "*ABC-1* Login &lt;!channel&gt; fails",
		[]string{"*Status*\nBacklog", "*Priority*\nHigh", "*Assignee*\nUnassigned", "*Link*\n<http://tracker.test/api/v1/tickets/" + f.ticket.ID.String() + "|Open ABC-1>"})
	// A key held in two orgs is ambiguous.
	f.projectIn(t, f.outsider.OrgID, "ABC")
	r := f.command(t, "TNONE", "UANY", "ABC-1")
	if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "several organizations") {
		t.Fatalf("ambiguous %v", r)
	}
}
