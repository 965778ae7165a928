package deliverywf_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"

	acts "tracker/activities/delivery"
	"tracker/domain/delivery"
	"tracker/domain/notification"
	"tracker/domain/testfactory"
	"tracker/internal/smtptest"
	"tracker/store"
	"tracker/store/notificationdb"
	"tracker/worker/workertest"
	deliverywf "tracker/workflows/delivery"
	"tracker/workflows/workflowtest"
)

// hookMailer runs before (when set) ahead of each send, so a test can act
// while a digest's send is under way.
type hookMailer struct {
	acts.Mailer
	mu     sync.Mutex
	before func(context.Context, delivery.Email)
}

func (h *hookMailer) setBefore(f func(context.Context, delivery.Email)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.before = f
}

func (h *hookMailer) Send(ctx context.Context, e delivery.Email) error {
	h.mu.Lock()
	f := h.before
	h.mu.Unlock()
	if f != nil {
		f(ctx, e)
	}
	return h.Mailer.Send(ctx, e)
}

// windowWorld is what the timed-window case takes from the dev server test.
type windowWorld struct {
	db      *store.DB
	c       client.Client
	mail    *smtptest.Server
	mailer  *hookMailer
	org     uuid.UUID
	project uuid.UUID
	ticket  uuid.UUID
	actor   uuid.UUID
}

// testTimedWindow: with a digest minute of a second (the worker's
// DigestMinute, what TRACKER_TEST_DIGEST_MINUTE sets) and one window per
// run, a 15-minute digest opens with a notification, collects the two that
// arrive while its timer runs and sends the three in one email when it
// fires; one told during that send goes into the next run (continue-as-new
// carries it), whose own window sends it alone.
func testTimedWindow(t *testing.T, w windowWorld) {
	ctx := context.Background()
	lin := testfactory.User(t, w.db, testfactory.UserOpts{Name: "Lin"})
	testfactory.Member(t, w.db, w.org, lin.ID, testfactory.MemberOpts{})
	if err := notificationdb.PutSettings(ctx, w.db.Q(), lin.ID, notificationdb.Settings{EmailEnabled: true, DigestMinutes: 15},
		time.Now()); err != nil {
		t.Fatal(err)
	}
	tell := func(excerpt string) {
		t.Helper()
		e := notification.Event{OrgID: w.org, ProjectID: w.project, TicketID: &w.ticket, ActorID: &w.actor, Excerpt: excerpt, At: time.Now()}
		e.Tell(lin.ID, notification.TypeMentioned)
		if err := w.db.InTx(ctx, func(q store.Querier) error { return notification.Emit(ctx, q, e) }); err != nil {
			t.Error(err)
		}
	}
	id := deliverywf.DigestWorkflowID(lin.ID)
	history := func(runID string) []*historypb.HistoryEvent {
		hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var out []*historypb.HistoryEvent
		it := w.c.GetWorkflowHistory(hctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				return nil
			}
			out = append(out, ev)
		}
		return out
	}
	count := func(events []*historypb.HistoryEvent, kind enumspb.EventType) int {
		n := 0
		for _, ev := range events {
			if ev.GetEventType() == kind {
				n++
			}
		}
		return n
	}
	signals := func(n int) func() bool {
		return func() bool { return count(history(""), enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED) >= n }
	}

	var once sync.Once
	w.mailer.setBefore(func(context.Context, delivery.Email) {
		once.Do(func() {
			tell("told during the send")
			// On the activity's goroutine: no t.Fatal here; the history
			// checks below fail if the signal came later.
			for deadline := time.Now().Add(5 * time.Minute); !signals(4)() && time.Now().Before(deadline); {
				time.Sleep(100 * time.Millisecond)
			}
		})
	})
	defer w.mailer.setBefore(nil)
	before := len(w.mail.Messages())

	tell("the first, which opens the window")
	workertest.WaitFor(t, 60*time.Second, "the window's timer", func() bool {
		return count(history(""), enumspb.EVENT_TYPE_TIMER_STARTED) == 1
	})
	tell("the second, in the window")
	tell("the third, in the window")
	workertest.WaitFor(t, 60*time.Second, "the signals in the window", signals(3))

	msgs := w.mail.Wait(before+2, 90*time.Second)
	var got []smtptest.Message
	for _, m := range msgs[before:] {
		if len(m.To) == 1 && m.To[0] == lin.Email {
			got = append(got, m)
		}
	}
	if len(got) != 2 || got[0].Subject != "3 new notifications" || !strings.Contains(got[1].Subject, "mentioned you") {
		t.Fatalf("Lin's emails %+v", got)
	}
	for _, excerpt := range []string{"the first", "the second", "the third"} {
		if !strings.Contains(got[0].Text, excerpt) || strings.Contains(got[1].Text, excerpt) {
			t.Errorf("%q: in the first email %v, in the second %v", excerpt, strings.Contains(got[0].Text, excerpt),
				strings.Contains(got[1].Text, excerpt))
		}
	}
	if !strings.Contains(got[1].Text, "told during the send") || strings.Contains(got[0].Text, "told during the send") {
		t.Errorf("the notification told during the send: first %q, second %q", got[0].Text, got[1].Text)
	}

	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	if err := w.c.GetWorkflow(wctx, id, "").Get(wctx, nil); err != nil {
		t.Fatalf("digest of Lin: %v", err)
	}
	second := history("")
	first := history(second[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId())
	if len(first) == 0 {
		t.Fatal("the digest did not continue as new")
	}
	// The first run: one timer of 15 digest minutes, the three signals
	// before it fired and one after, one send, then continue-as-new.
	var timerAt, firedAt int
	for i, ev := range first {
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			timerAt = i
			if d := ev.GetTimerStartedEventAttributes().GetStartToFireTimeout().AsDuration(); d != 15*time.Second {
				t.Errorf("the window's timer is %v, want 15 digest minutes of 1 s", d)
			}
		case enumspb.EVENT_TYPE_TIMER_FIRED:
			firedAt = i
		}
	}
	inWindow := count(first[timerAt:firedAt], enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)
	if count(first, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED) != 4 || inWindow != 2 ||
		count(first, enumspb.EVENT_TYPE_TIMER_FIRED) != 1 || count(first, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) != 2 ||
		first[len(first)-1].GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
		t.Fatalf("first run: %d signals (%d in the window), %d timers fired, %d activities, ends %v",
			count(first, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED), inWindow, count(first, enumspb.EVENT_TYPE_TIMER_FIRED),
			count(first, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED), first[len(first)-1].GetEventType())
	}
	// The second: started with the pending notification, its own window.
	if count(second, enumspb.EVENT_TYPE_TIMER_FIRED) != 1 || count(second, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED) != 0 ||
		second[len(second)-1].GetEventType() != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
		t.Fatalf("second run: %d timers fired, %d signals, ends %v", count(second, enumspb.EVENT_TYPE_TIMER_FIRED),
			count(second, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED), second[len(second)-1].GetEventType())
	}
	save(t, w.c, id, second[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId(), "email_digest_window_1.json")
	save(t, w.c, id, "", "email_digest_window_2.json")
}

// save writes a run's history into testdata under -capture, when name
// starts with -capture-only.
func save(t *testing.T, c client.Client, workflowID, runID, name string) {
	t.Helper()
	if *capture && strings.HasPrefix(name, *captureOnly) {
		n := workflowtest.SaveHistory(t, c, workflowID, runID, filepath.Join("testdata", name))
		t.Logf("wrote %s: %d events", name, n)
	}
}
