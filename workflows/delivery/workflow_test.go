package deliverywf_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/delivery"
	"tracker/domain"
	"tracker/domain/delivery"
	"tracker/domain/notification"
	"tracker/domain/testfactory"
	"tracker/internal/smtptest"
	"tracker/store"
	"tracker/store/notificationdb"
	"tracker/store/storetest"
	deliverywf "tracker/workflows/delivery"
	"tracker/workflows/workflowtest"
)

// TestOneEmailPerDigestWindow runs the digest in Temporal's testsuite (its
// clock skips ahead) with the real activities, database and an SMTP
// server: three notifications over five minutes of a 10-minute window are
// one email, sent when the window closes; with a window of 0 the next is
// sent at once; a 451 is retried with backoff until the server takes it.
func TestOneEmailPerDigestWindow(t *testing.T) {
	db := storetest.New(t)
	mail := smtptest.Start(t)
	actor := testfactory.User(t, db, testfactory.UserOpts{Name: "Ada"})
	user := testfactory.User(t, db, testfactory.UserOpts{Name: "Grace"})
	org := testfactory.Org(t, db, actor.ID, testfactory.OrgOpts{})
	testfactory.Member(t, db, org.ID, user.ID, testfactory.MemberOpts{})
	project := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{Key: "WIN"})
	ticket := testfactory.Ticket(t, db, project, actor.ID, testfactory.TicketOpts{Title: "Windows"})
	notify := func() uuid.UUID {
		t.Helper()
		ctx := context.Background()
		e := notification.Event{OrgID: org.ID, ProjectID: project.ID, TicketID: &ticket.ID, ActorID: &actor.ID, At: time.Now()}
		e.Tell(user.ID, notification.TypeAssigned)
		if err := db.InTx(ctx, func(q store.Querier) error { return notification.Emit(ctx, q, e) }); err != nil {
			t.Fatal(err)
		}
		id, err := notificationdb.Newest(ctx, db.Q(), user.ID)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ids := []uuid.UUID{notify(), notify(), notify()}
	m, err := acts.NewSMTP(mail.URL(), "tracker@example.test")
	if err != nil {
		t.Fatal(err)
	}
	a := &acts.Activities{Delivery: delivery.New(db, domain.SystemClock{}, "http://localhost:3000", []byte("k")), Mailer: m}

	run := func(signals map[time.Duration]uuid.UUID) (sentAt []time.Duration) {
		env := workflowtest.NewEnv(t)
		env.RegisterActivityWithOptions(a, activity.RegisterOptions{Name: acts.Prefix})
		start := env.Now()
		env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
			if info.ActivityType.Name == acts.SendDigestName {
				sentAt = append(sentAt, env.Now().Sub(start))
			}
		})
		for at, id := range signals {
			env.RegisterDelayedCallback(func() { env.SignalWorkflow(deliverywf.SignalName, id) }, at)
		}
		env.ExecuteWorkflow(deliverywf.EmailDigest, deliverywf.DigestInput{UserID: user.ID, Pending: []uuid.UUID{ids[0]}})
		if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
			t.Fatalf("digest: %v", env.GetWorkflowError())
		}
		return sentAt
	}

	sentAt := run(map[time.Duration]uuid.UUID{2 * time.Minute: ids[1], 5 * time.Minute: ids[2]})
	if len(sentAt) != 1 || sentAt[0] < 10*time.Minute {
		t.Fatalf("sends at %v, want one when the 10-minute window closes", sentAt)
	}
	msgs := mail.Wait(1, 30*time.Second)
	if len(msgs) != 1 || msgs[0].Subject != "3 new notifications" {
		t.Fatalf("%d emails, first %q", len(msgs), msgs[0].Subject)
	}

	if err := notificationdb.PutSettings(context.Background(), db.Q(), user.ID, notificationdb.Settings{EmailEnabled: true}, time.Now()); err != nil {
		t.Fatal(err)
	}
	ids[0] = notify()
	if sentAt := run(nil); len(sentAt) != 1 || sentAt[0] != 0 {
		t.Fatalf("sends at %v, want one at once with digest_minutes 0", sentAt)
	}
	if msgs := mail.Wait(2, 30*time.Second); len(msgs) != 2 || msgs[1].Subject != "Ada assigned you on WIN-1 Windows" {
		t.Fatalf("%d emails", len(msgs))
	}

	// A busy mail server (451) is retried by the send's retry policy, in
	// the same run, until it takes the email.
	mail.Refuse(user.Email, 451, 451, 0)
	ids[0] = notify()
	if sentAt := run(nil); len(sentAt) != 3 || sentAt[1] < 30*time.Second || sentAt[2] < sentAt[1]+time.Minute {
		t.Fatalf("attempts at %v, want three backing off from 30 s", sentAt)
	}
	if msgs := mail.Wait(3, 30*time.Second); len(msgs) != 3 {
		t.Fatalf("%d emails", len(msgs))
	}
}

// TestDigestMinuteAndMaxWindowsTravelInTheInput: the window is
// digest_minutes of the input's Minute (a test's second, not a minute),
// and a run that has sent its MaxWindows continues as new with what
// arrived during its last send and the same settings.
func TestDigestMinuteAndMaxWindowsTravelInTheInput(t *testing.T) {
	env := workflowtest.NewEnv(t)
	env.RegisterActivityWithOptions(&acts.Activities{}, activity.RegisterOptions{Name: acts.Prefix})
	user, first, during := uuid.New(), uuid.New(), uuid.New()
	start := env.Now()
	var sentAt []time.Duration
	var sent [][]uuid.UUID
	env.OnActivity(acts.DigestMinutesName, mock.Anything, acts.UserInput{UserID: user}).Return(15, nil)
	env.OnActivity(acts.SendDigestName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in acts.SendInput) (acts.SendResult, error) {
			sentAt = append(sentAt, env.Now().Sub(start))
			sent = append(sent, in.IDs)
			env.SignalWorkflow(deliverywf.SignalName, during)
			return acts.SendResult{Sent: len(in.IDs)}, nil
		}).Once()
	in := deliverywf.DigestInput{UserID: user, Pending: []uuid.UUID{first}, Minute: time.Second, MaxWindows: 1}
	env.ExecuteWorkflow(deliverywf.EmailDigest, in)

	if len(sentAt) != 1 || sentAt[0] < 15*time.Second || sentAt[0] >= time.Minute || len(sent[0]) != 1 || sent[0][0] != first {
		t.Fatalf("sends at %v of %v, want one of the first after 15 digest minutes of 1 s", sentAt, sent)
	}
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("digest ended %v, want continue-as-new after MaxWindows 1", err)
	}
	var next deliverywf.DigestInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	want := deliverywf.DigestInput{UserID: user, Pending: []uuid.UUID{during}, Minute: time.Second, MaxWindows: 1}
	if fmt.Sprint(next) != fmt.Sprint(want) {
		t.Fatalf("continued as new with %+v, want %+v", next, want)
	}
}
