package chatact_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/chat"
	"tracker/domain"
	"tracker/domain/chat/chattest"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/chatdb"
	"tracker/store/storetest"
	"tracker/workflows/workflowtest"
)

// chatWorld is the activities under their registered names in Temporal's
// activity environment, against PostgreSQL and the chat service's
// stand-in (the service's own bot token; no connected workspace).
type chatWorld struct {
	db    *store.DB
	slack *chattest.SlackAPI
	env   *testsuite.TestActivityEnvironment
	org   uuid.UUID
}

func newChatWorld(t *testing.T) chatWorld {
	t.Helper()
	db := storetest.New(t)
	slack := chattest.NewSlackAPI(t)
	a := &acts.Activities{DB: db, Clock: domain.SystemClock{}, Slack: acts.NewSlackClient("xoxb-service", slack.URL+"/api/")}
	owner := testfactory.User(t, db, testfactory.UserOpts{})
	return chatWorld{db: db, slack: slack, env: workflowtest.NewActivityEnv(a, acts.Prefix),
		org: testfactory.Org(t, db, owner.ID, testfactory.OrgOpts{}).ID}
}

// queue writes a queued delivery record (thread "": a channel message).
func (w chatWorld) queue(t *testing.T, thread string) uuid.UUID {
	t.Helper()
	now := time.Now().UTC()
	n := chatdb.Notification{ID: domain.NewID(), OrgID: w.org, NotificationType: "mention", ChannelID: "C42",
		Text: "<@U1> mentioned on *ABC-1* hi", Status: "queued", CreatedAt: now, UpdatedAt: now}
	if thread != "" {
		n.ThreadTS = &thread
	}
	if _, err := chatdb.InsertNotification(context.Background(), w.db.Q(), n); err != nil {
		t.Fatal(err)
	}
	return n.ID
}

func (w chatWorld) record(t *testing.T, id uuid.UUID) chatdb.Notification {
	t.Helper()
	n, err := chatdb.GetNotification(context.Background(), w.db.Q(), id)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// post runs PostNotification and decodes its result.
func (w chatWorld) post(t *testing.T, id uuid.UUID) (acts.PostResult, error) {
	t.Helper()
	v, err := w.env.ExecuteActivity(acts.PostNotificationName, acts.PostInput{NotificationID: id})
	var res acts.PostResult
	if err == nil {
		if derr := v.Get(&res); derr != nil {
			t.Fatal(derr)
		}
	}
	return res, err
}

// permanent reports whether err is the activities' non-retryable failure.
func permanent(err error) bool {
	var ae *temporal.ApplicationError
	return errors.As(err, &ae) && ae.Type() == acts.ErrPermanent && ae.NonRetryable()
}

// TestPostNotificationPostsOnceAndRecordsIt posts a threaded notification
// through the stand-in and records it sent with the message's ts; run
// again (a retried activity whose reply was lost), it reads the record and
// posts nothing.
func TestPostNotificationPostsOnceAndRecordsIt(t *testing.T) {
	t.Parallel()
	w := newChatWorld(t)
	id := w.queue(t, "1700000000.000100")
	for run := 1; run <= 2; run++ {
		res, err := w.post(t, id)
		if err != nil || res.Status != "sent" || res.MessageTS != chattest.TS(1) {
			t.Fatalf("run %d: %+v %v", run, res, err)
		}
	}
	posts, _ := w.slack.Got()
	if len(posts) != 1 {
		t.Fatalf("%d posts, want 1", len(posts))
	}
	p := posts[0]
	if p.Get("channel") != "C42" || p.Get("thread_ts") != "1700000000.000100" || p.Get("text") != "<@U1> mentioned on *ABC-1* hi" ||
		(p.Get("token") != "xoxb-service" && p.Get("auth") != "Bearer xoxb-service") {
		t.Fatalf("chat.postMessage %v", p)
	}
	if n := w.record(t, id); n.Status != "sent" || n.Attempts != 1 || n.MessageTS == nil || *n.MessageTS != chattest.TS(1) {
		t.Fatalf("record %+v", n)
	}
}

// TestPostNotificationFailures: an error code no retry can fix is recorded
// as failed and ends the activity for good; any other code keeps the
// record queued for the workflow's retry; a record that does not exist is
// permanent without a post.
func TestPostNotificationFailures(t *testing.T) {
	t.Parallel()
	w := newChatWorld(t)

	gone := w.queue(t, "")
	w.slack.FailPosts("channel_not_found")
	if _, err := w.post(t, gone); !permanent(err) {
		t.Fatalf("channel_not_found: %v", err)
	}
	if n := w.record(t, gone); n.Status != "failed" || n.Attempts != 1 || n.LastError == nil {
		t.Fatalf("record after channel_not_found %+v", n)
	}

	flaky := w.queue(t, "")
	w.slack.FailPosts("internal_error")
	if _, err := w.post(t, flaky); err == nil || permanent(err) {
		t.Fatalf("internal_error: %v, want a retryable error", err)
	}
	if n := w.record(t, flaky); n.Status != "queued" || n.Attempts != 1 || n.LastError == nil {
		t.Fatalf("record after internal_error %+v", n)
	}
	if res, err := w.post(t, flaky); err != nil || res.Status != "sent" {
		t.Fatalf("retry: %+v %v", res, err)
	}
	if n := w.record(t, flaky); n.Status != "sent" || n.Attempts != 2 {
		t.Fatalf("record after the retry %+v", n)
	}

	before, _ := w.slack.Got()
	if _, err := w.post(t, domain.NewID()); !permanent(err) {
		t.Fatalf("missing record: %v", err)
	}
	if after, _ := w.slack.Got(); len(after) != len(before) {
		t.Fatal("a missing record was posted")
	}
}

// TestMarkFailedRecordsTheLastError is the workflow's end of the retries:
// the record is failed with the error it was given.
func TestMarkFailedRecordsTheLastError(t *testing.T) {
	t.Parallel()
	w := newChatWorld(t)
	id := w.queue(t, "")
	if _, err := w.env.ExecuteActivity(acts.MarkFailedName, acts.FailInput{NotificationID: id, Error: "retries ran out"}); err != nil {
		t.Fatal(err)
	}
	if n := w.record(t, id); n.Status != "failed" || n.LastError == nil || *n.LastError != "retries ran out" {
		t.Fatalf("record %+v", n)
	}
}

// TestRespondAnswersTheCommandOnce posts the ephemeral follow-up to the
// command's response_url and records it; run again, it posts nothing.
func TestRespondAnswersTheCommandOnce(t *testing.T) {
	t.Parallel()
	w := newChatWorld(t)
	id := w.queue(t, "")
	in := acts.RespondInput{NotificationID: id, ResponseURL: w.slack.URL + "/commands/T1/1", Text: "Created *ABC-2*"}
	for run := 1; run <= 2; run++ {
		v, err := w.env.ExecuteActivity(acts.RespondName, in)
		var res acts.PostResult
		if err == nil {
			err = v.Get(&res)
		}
		if err != nil || res.Status != "sent" {
			t.Fatalf("run %d: %+v %v", run, res, err)
		}
	}
	_, responses := w.slack.Got()
	if len(responses) != 1 {
		t.Fatalf("%d responses, want 1", len(responses))
	}
	r := responses[0]
	if r["path"] != "/commands/T1/1" || r["response_type"] != "ephemeral" || r["text"] != "Created *ABC-2*" {
		t.Fatalf("response_url %v", r)
	}
	if n := w.record(t, id); n.Status != "sent" || n.Text != "Created *ABC-2*" || n.Attempts != 1 {
		t.Fatalf("record %+v", n)
	}
}
