package deliverywf_test

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	chatact "tracker/activities/chat"
	acts "tracker/activities/delivery"
	"tracker/domain"
	"tracker/domain/chat"
	"tracker/domain/chat/chattest"
	"tracker/domain/delivery"
	"tracker/domain/notification"
	"tracker/domain/testfactory"
	"tracker/internal/smtptest"
	"tracker/store"
	"tracker/store/chatdb"
	"tracker/store/notificationdb"
	"tracker/store/storetest"
	"tracker/worker"
	"tracker/worker/jobkind"
	"tracker/worker/workertest"
	chatwf "tracker/workflows/chat"
	deliverywf "tracker/workflows/delivery"
	"tracker/workflows/workflowtest"
)

var (
	capture     = flag.Bool("capture", false, "the dev server test writes the histories of the runs it closes into testdata")
	captureOnly = flag.String("capture-only", "", "with -capture: write only the histories whose file name starts with this")
)

// TestDeliveryOnTheDevServer runs delivery as it runs in production: the
// notification's outbox row written in the change's transaction, the
// relay, the Temporal dev server, the delivery and chat registrations on
// one worker, an SMTP server and the chat stand-in. A mention reaches its
// recipient as an email (at once: digest_minutes 0) and as a direct
// message to their linked chat user; an address the mail server refuses
// turns that person's email off; the due-soon sweep tells a watcher once;
// a timed window collects what arrives in it (testTimedWindow, with a
// digest minute of a second).
//
//	go test ./workflows/delivery -run OnTheDevServer -count=1 -args -capture
//
// rewrites the histories replay_test.go replays (-capture-only
// email_digest_window writes only the files whose name starts with it).
func TestDeliveryOnTheDevServer(t *testing.T) {
	db := storetest.New(t)
	mail := smtptest.Start(t)
	slack := chattest.NewSlackAPI(t)
	srv := workertest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	clock := domain.SystemClock{}

	actor := testfactory.User(t, db, testfactory.UserOpts{Name: "Ada"})
	grace := testfactory.User(t, db, testfactory.UserOpts{Name: "Grace"})
	bounced := testfactory.User(t, db, testfactory.UserOpts{Name: "Nobody"})
	org := testfactory.Org(t, db, actor.ID, testfactory.OrgOpts{})
	for _, u := range []uuid.UUID{grace.ID, bounced.ID} {
		testfactory.Member(t, db, org.ID, u, testfactory.MemberOpts{})
		if err := notificationdb.PutSettings(ctx, db.Q(), u, notificationdb.Settings{EmailEnabled: true}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chatdb.LinkIdentity(ctx, db.Q(), chatdb.Identity{OrgID: org.ID, UserID: grace.ID, SlackUserID: "UGRACE",
		CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	project := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{Key: "DEV"})
	ticket := testfactory.Ticket(t, db, project, actor.ID, testfactory.TicketOpts{Title: "Ship it", AssigneeID: &grace.ID})
	mail.Refuse(bounced.Email, 550)

	smtp, err := acts.NewSMTP(mail.URL(), "tracker@example.test")
	if err != nil {
		t.Fatal(err)
	}
	m := &hookMailer{Mailer: smtp}
	svc := delivery.New(db, clock, "http://localhost:3000", []byte("k"))
	dreg := deliverywf.Register(deliverywf.Deps{Delivery: svc, Notifications: notification.New(db, clock), Mailer: m,
		DigestMinute: time.Second, DigestMaxWindows: 1})
	creg := chatwf.Register(chatwf.Deps{DB: db, Clock: clock, Chat: chat.New(db, clock, chat.Config{}),
		Slack: chatact.NewSlackClient("xoxb-service", slack.URL+"/api/")})
	both := jobkind.Registration{Register: func(r sdkworker.Registry) { dreg.Register(r); creg.Register(r) }}
	wenv := workflowtest.Run(t, c, "delivery-"+uuid.NewString()[:8], both)
	topics := map[string][]jobkind.Dispatch{}
	for _, reg := range []jobkind.Registration{dreg, creg} {
		for topic, d := range reg.Topics {
			topics[topic] = append(topics[topic], d)
		}
	}
	relay := &worker.Relay{DB: db, Log: wenv.Log, Env: wenv, Poll: 200 * time.Millisecond, Topics: topics}
	stop := workertest.Background(t, func(ctx context.Context) error { relay.Run(ctx); return nil })
	defer stop()

	e := notification.Event{OrgID: org.ID, ProjectID: project.ID, TicketID: &ticket.ID, ActorID: &actor.ID,
		Excerpt: "@grace and @nobody: ship it", At: time.Now()}
	e.Tell(grace.ID, notification.TypeMentioned)
	e.Tell(bounced.ID, notification.TypeMentioned)
	if err := db.InTx(ctx, func(q store.Querier) error { return notification.Emit(ctx, q, e) }); err != nil {
		t.Fatal(err)
	}

	msgs := mail.Wait(1, 90*time.Second)
	if len(msgs) != 1 || msgs[0].To[0] != grace.Email || msgs[0].Subject != "Ada mentioned you on DEV-1 Ship it" ||
		msgs[0].Text == "" || msgs[0].HTML == "" {
		t.Fatalf("emails %+v", msgs)
	}
	workertest.WaitFor(t, 90*time.Second, "the direct message", func() bool {
		posts, _ := slack.Got()
		return len(posts) == 1
	})
	posts, _ := slack.Got()
	if p := posts[0]; p.Get("channel") != "UGRACE" || !strings.Contains(p.Get("text"), "Ada mentioned you on DEV-1 Ship it") ||
		!strings.Contains(p.Get("text"), "/api/v1/tickets/"+ticket.ID.String()) {
		t.Fatalf("direct message %v", p)
	}
	workertest.WaitFor(t, 90*time.Second, "the refused address to turn email off", func() bool {
		s, err := notificationdb.GetSettings(ctx, db.Q(), bounced.ID)
		return err == nil && !s.EmailEnabled && s.EmailDisabledReason != nil
	})
	for _, u := range []uuid.UUID{grace.ID, bounced.ID} {
		wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		if err := c.GetWorkflow(wctx, deliverywf.DigestWorkflowID(u), "").Get(wctx, nil); err != nil {
			t.Fatalf("digest of %s: %v", u, err)
		}
		cancel()
	}
	save(t, c, deliverywf.DigestWorkflowID(grace.ID), "", "email_digest_sent.json")
	save(t, c, deliverywf.DigestWorkflowID(bounced.ID), "", "email_digest_refused.json")

	t.Run("a timed window collects what arrives in it and sends one email", func(t *testing.T) {
		testTimedWindow(t, windowWorld{db: db, c: c, mail: mail, mailer: m, org: org.ID, project: project.ID, ticket: ticket.ID,
			actor: actor.ID})
	})

	t.Run("the due-soon sweep tells a watcher once per due date", func(t *testing.T) {
		if err := notificationdb.Watch(ctx, db.Q(), org.ID, project.ID, ticket.ID, []uuid.UUID{grace.ID}, time.Now()); err != nil {
			t.Fatal(err)
		}
		tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
		if _, err := db.Pool.Exec(ctx, `UPDATE tickets SET due_date = $1 WHERE id = $2`, tomorrow, ticket.ID); err != nil {
			t.Fatal(err)
		}
		sweep := func(id string) int {
			t.Helper()
			wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
			defer cancel()
			run, err := c.ExecuteWorkflow(wctx, clientOptions(id, wenv.TaskQueue), deliverywf.SweepWorkflowName)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			if err := run.Get(wctx, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		first := "sweep-" + uuid.NewString()
		if n := sweep(first); n != 1 {
			t.Fatalf("first sweep told %d", n)
		}
		if n := sweep("sweep-" + uuid.NewString()); n != 0 {
			t.Fatalf("second sweep told %d", n)
		}
		var count int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE type = 'due_soon' AND user_id = $1 AND ticket_id = $2`,
			grace.ID, ticket.ID).Scan(&count); err != nil || count != 1 {
			t.Fatalf("due_soon notifications of the watcher: %d %v", count, err)
		}
		save(t, c, first, "", "due_soon_sweep.json")
	})
}

func clientOptions(id, taskQueue string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}
}
