package chat_test

import (
	"strings"
	"testing"
)

// blocks checks the answer to a ticket: in_channel, one section whose text
// names the ref and title and whose fields show status, priority, assignee
// and a link.
func blocks(t *testing.T, r map[string]any, wantText string, wantFields []string) {
	t.Helper()
	bs, _ := r["blocks"].([]any)
	if r["response_type"] != "in_channel" || len(bs) != 1 {
		t.Fatalf("answer %v", r)
	}
	b := bs[0].(map[string]any)
	text := b["text"].(map[string]any)
	if b["type"] != "section" || text["type"] != "mrkdwn" || text["text"] != wantText {
		t.Fatalf("section %v", b)
	}
	fs := b["fields"].([]any)
	if len(fs) != len(wantFields) {
		t.Fatalf("fields %v", fs)
	}
	for i, w := range wantFields {
		if got := fs[i].(map[string]any)["text"]; got != w {
			t.Errorf("field %d: %q, want %q", i, got, w)
		}
	}
}

// TestLookupAndHelp: /ticket <ref> answers the ticket's blocks to linked
// members, Viewers and unlinked chat users of the workspace's org alike;
// anything else is the usage.
func TestLookupAndHelp(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	f.linkT1(t)

	link := "<http://tracker.test/api/v1/tickets/" + f.ticket.ID.String() + "|Open ABC-1>"
	for _, ref := range []string{"ABC-1", "abc-1"} {
		r := f.command(t, "T1", "UMEMBER", ref)
		blocks(t, r, "*ABC-1* Login &lt;!channel&gt; fails", []string{"*Status*\nBacklog", "*Priority*\nHigh", "*Assignee*\nUnassigned", "*Link*\n" + link})
	}
	for _, text := range []string{"", "help", "  HELP ", "frobnicate the thing", "ABC-x"} {
		r := f.command(t, "T1", "UMEMBER", text)
		if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "Usage:") || r["blocks"] != nil {
			t.Errorf("%q: %v", text, r)
		}
	}
	for _, text := range []string{"ABC-99", "ZZZ-1"} {
		if r := f.command(t, "T1", "UMEMBER", text); r["response_type"] != "ephemeral" {
			t.Errorf("%q: %v", text, r)
		}
	}
	// A Viewer and an unlinked chat user may look up.
	blocks(t, f.command(t, "T1", "UVIEWER", "ABC-1"), "*ABC-1* Login &lt;!channel&gt; fails",
		[]string{"*Status*\nBacklog", "*Priority*\nHigh", "*Assignee*\nUnassigned", "*Link*\n" + link})
	if r := f.command(t, "T1", "USTRANGER", "ABC-1"); r["response_type"] != "in_channel" {
		t.Fatalf("unlinked lookup %v", r)
	}
	// The workspace's org decides: a key of another org is not found.
	f.projectIn(t, f.outsider.OrgID, "OUT")
	if r := f.command(t, "T1", "UMEMBER", "OUT-1"); r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "No project OUT") {
		t.Fatalf("other org's key %v", r)
	}
}
