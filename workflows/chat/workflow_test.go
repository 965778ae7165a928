package chatwf

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	acts "tracker/activities/chat"
	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/chatdb"
	"tracker/store/storetest"
	"tracker/workflows/workflowtest"
)

// recorder speaks Slack's Web API for chat.postMessage: it records every
// call's form and answers from a script (then ok).
type recorder struct {
	mu     sync.Mutex
	calls  []map[string]string
	script []func(w http.ResponseWriter)
	url    string
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	_ = req.ParseForm()
	r.mu.Lock()
	call := map[string]string{"path": req.URL.Path, "auth": req.Header.Get("Authorization")}
	for k := range req.PostForm {
		call[k] = req.PostForm.Get(k)
	}
	r.calls = append(r.calls, call)
	var next func(w http.ResponseWriter)
	if len(r.script) > 0 {
		next, r.script = r.script[0], r.script[1:]
	}
	r.mu.Unlock()
	if next != nil {
		next(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": call["channel"], "ts": "1700000001.000200"})
}

func slackError(code string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": code})
	}
}

func rateLimited(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "7")
	w.WriteHeader(http.StatusTooManyRequests)
}

func setup(t *testing.T, script ...func(w http.ResponseWriter)) (*store.DB, *recorder, *acts.Activities) {
	db := storetest.New(t)
	rec := &recorder{script: script}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	rec.url = srv.URL
	a := &acts.Activities{DB: db, Clock: domain.SystemClock{}, Slack: acts.NewSlackClient("xoxb-test", srv.URL+"/api")}
	return db, rec, a
}

func queued(t *testing.T, db *store.DB, thread string) uuid.UUID {
	ctx := context.Background()
	org := testfactory.Org(t, db, uuid.Nil, testfactory.OrgOpts{}).ID
	now := time.Now().UTC()
	n := chatdb.Notification{ID: uuid.Must(uuid.NewV7()), OrgID: org, NotificationType: "mention", ChannelID: "C42",
		Text: "<@U1> mentioned on *ABC-1* hi", Status: "queued", CreatedAt: now, UpdatedAt: now}
	if thread != "" {
		n.ThreadTS = &thread
	}
	if _, err := chatdb.InsertNotification(ctx, db.Q(), n); err != nil {
		t.Fatal(err)
	}
	return n.ID
}

func run(t *testing.T, a *acts.Activities, id uuid.UUID) acts.PostResult {
	t.Helper()
	var res acts.PostResult
	workflowtest.Execute(t, a, acts.Prefix, ChatNotification, Input{NotificationID: id}, &res)
	return res
}

func record(t *testing.T, db *store.DB, id uuid.UUID) chatdb.Notification {
	n, err := chatdb.GetNotification(context.Background(), db.Q(), id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPostsExactlyOneThreadedMessage(t *testing.T) {
	t.Parallel()
	db, rec, a := setup(t)
	id := queued(t, db, "1700000000.000100")
	res := run(t, a, id)
	if res.Status != "sent" || res.MessageTS != "1700000001.000200" || len(rec.calls) != 1 {
		t.Fatalf("result %+v calls %v", res, rec.calls)
	}
	c := rec.calls[0]
	if c["path"] != "/api/chat.postMessage" || c["channel"] != "C42" || c["thread_ts"] != "1700000000.000100" ||
		c["text"] != "<@U1> mentioned on *ABC-1* hi" || (c["auth"] != "Bearer xoxb-test" && c["token"] != "xoxb-test") {
		t.Fatalf("call %v", c)
	}
	n := record(t, db, id)
	if n.Status != "sent" || n.Attempts != 1 || *n.MessageTS != "1700000001.000200" {
		t.Fatalf("record %+v", n)
	}
	// Run again (a duplicate start, a retried activity): nothing posted twice.
	run(t, a, id)
	if len(rec.calls) != 1 {
		t.Fatalf("posted again: %d calls", len(rec.calls))
	}
}

func TestRateLimitedThenSent(t *testing.T) {
	t.Parallel()
	db, rec, a := setup(t, rateLimited)
	id := queued(t, db, "")
	res := run(t, a, id)
	if res.Status != "sent" || len(rec.calls) != 2 {
		t.Fatalf("result %+v, %d calls", res, len(rec.calls))
	}
	if _, ok := rec.calls[1]["thread_ts"]; ok {
		t.Fatal("unthreaded notification sent a thread_ts")
	}
	n := record(t, db, id)
	if n.Status != "sent" || n.Attempts != 2 {
		t.Fatalf("record %+v", n)
	}
}

func TestRateLimitUsesRetryAfter(t *testing.T) {
	t.Parallel()
	db, _, a := setup(t, rateLimited)
	id := queued(t, db, "")
	env := workflowtest.NewActivityEnv(a, acts.Prefix)
	_, err := env.ExecuteActivity(acts.PostNotificationName, acts.PostInput{NotificationID: id})
	var ae interface {
		Type() string
		NextRetryDelay() time.Duration
	}
	if err == nil || !asApp(err, &ae) || ae.Type() != acts.ErrRateLimited || ae.NextRetryDelay() != 7*time.Second {
		t.Fatalf("err %v", err)
	}
}

func TestPermanentErrorRecordedNotRetried(t *testing.T) {
	t.Parallel()
	for _, code := range []string{"channel_not_found", "invalid_auth", "not_in_channel"} {
		db, rec, a := setup(t, slackError(code))
		id := queued(t, db, "")
		res := run(t, a, id)
		n := record(t, db, id)
		if res.Status != "failed" || len(rec.calls) != 1 || n.Status != "failed" || n.Attempts != 1 ||
			n.LastError == nil || !contains(*n.LastError, code) {
			t.Fatalf("%s: result %+v calls %d record %+v", code, res, len(rec.calls), n)
		}
	}
}

func TestRespondToResponseURL(t *testing.T) {
	t.Parallel()
	db, rec, a := setup(t, rateLimited, func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) },
		func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotFound) })
	env := workflowtest.NewActivityEnv(a, acts.Prefix)
	sent, gone := queued(t, db, ""), queued(t, db, "")
	url := rec.url + "/commands/T1/1"
	in := acts.RespondInput{NotificationID: sent, ResponseURL: url, Text: "Announced *ABC-1*"}
	var ae interface {
		Type() string
		NextRetryDelay() time.Duration
	}
	// 429 with Retry-After: retried after it; then sent; then never again.
	if _, err := env.ExecuteActivity(acts.RespondName, in); err == nil || !asApp(err, &ae) || ae.Type() != acts.ErrRateLimited || ae.NextRetryDelay() != 7*time.Second {
		t.Fatalf("429: %v", err)
	}
	for range 2 {
		v, err := env.ExecuteActivity(acts.RespondName, in)
		var res acts.PostResult
		if err != nil || v.Get(&res) != nil || res.Status != "sent" {
			t.Fatalf("respond: %v %+v", err, res)
		}
	}
	// 404 (expired or used up): permanent, recorded.
	if _, err := env.ExecuteActivity(acts.RespondName, acts.RespondInput{NotificationID: gone, ResponseURL: url, Text: "x"}); err == nil || !asApp(err, &ae) || ae.Type() != acts.ErrPermanent {
		t.Fatalf("404: %v", err)
	}
	if len(rec.calls) != 3 || rec.calls[1]["path"] != "/commands/T1/1" {
		t.Fatalf("calls %v", rec.calls)
	}
	if n := record(t, db, sent); n.Status != "sent" || n.Text != "Announced *ABC-1*" || n.Attempts != 2 {
		t.Fatalf("record %+v", n)
	}
	if n := record(t, db, gone); n.Status != "failed" || n.LastError == nil {
		t.Fatalf("record %+v", n)
	}
}
