package deliveryact_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	acts "tracker/activities/delivery"
	"tracker/domain"
	"tracker/domain/delivery"
	"tracker/domain/notification"
	"tracker/domain/testfactory"
	"tracker/internal/smtptest"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/notificationdb"
	"tracker/store/projectdb"
	"tracker/store/storetest"
	"tracker/store/ticketdb"
	"tracker/workflows/workflowtest"
)

// world is an org with a recipient, an actor, a project and a ticket, a
// mail server, and the activities sending to it.
type world struct {
	db        *store.DB
	recipient accountdb.User
	actor     accountdb.User
	project   projectdb.Row
	ticket    ticketdb.Row
	smtp      *smtptest.Server
	svc       *delivery.Service
	acts      *acts.Activities
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{db: storetest.New(t), smtp: smtptest.Start(t)}
	w.actor = testfactory.User(t, w.db, testfactory.UserOpts{Name: "Ada Lovelace"})
	w.recipient = testfactory.User(t, w.db, testfactory.UserOpts{Name: "Grace Hopper"})
	org := testfactory.Org(t, w.db, w.actor.ID, testfactory.OrgOpts{Name: "Analytical"})
	testfactory.Member(t, w.db, org.ID, w.recipient.ID, testfactory.MemberOpts{})
	w.project = testfactory.Project(t, w.db, org.ID, testfactory.ProjectOpts{Key: "ENG"})
	w.ticket = testfactory.Ticket(t, w.db, w.project, w.actor.ID, testfactory.TicketOpts{Title: "Fix the <engine>"})
	w.svc = delivery.New(w.db, domain.SystemClock{}, "https://tracker.example", []byte("secret"))
	m, err := acts.NewSMTP(w.smtp.URL(), "Tracker <tracker@tracker.example>")
	if err != nil {
		t.Fatal(err)
	}
	w.acts = &acts.Activities{Delivery: w.svc, Mailer: m}
	return w
}

// notify writes a notification of typ on the ticket to the recipient, as a
// change's transaction does, and returns its id.
func (w *world) notify(t *testing.T, typ, excerpt string) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	before, _ := notificationdb.Newest(ctx, w.db.Q(), w.recipient.ID)
	actor, ticket := w.actor.ID, w.ticket.ID
	e := notification.Event{OrgID: w.project.OrgID, ProjectID: w.project.ID, TicketID: &ticket, ActorID: &actor,
		Excerpt: excerpt, At: time.Now().UTC()}
	e.Tell(w.recipient.ID, typ)
	if err := w.db.InTx(ctx, func(q store.Querier) error { return notification.Emit(ctx, q, e) }); err != nil {
		t.Fatal(err)
	}
	id, err := notificationdb.Newest(ctx, w.db.Q(), w.recipient.ID)
	if err != nil || id == before {
		t.Fatalf("no notification written: %v", err)
	}
	return id
}

func (w *world) send(t *testing.T, ids ...uuid.UUID) (acts.SendResult, error) {
	t.Helper()
	env := workflowtest.NewActivityEnv(w.acts, acts.Prefix)
	v, err := env.ExecuteActivity(acts.SendDigestName, acts.SendInput{UserID: w.recipient.ID, IDs: ids})
	var res acts.SendResult
	if err == nil {
		err = v.Get(&res)
	}
	return res, err
}

func (w *world) settings(t *testing.T) notificationdb.Settings {
	t.Helper()
	s, err := notificationdb.GetSettings(context.Background(), w.db.Q(), w.recipient.ID)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDigestIsOneEmailWithBothPartsAndTheUnsubscribeHeaders(t *testing.T) {
	w := newWorld(t)
	a := w.notify(t, notification.TypeMentioned, "@grace look at this")
	b := w.notify(t, notification.TypeAssigned, "")
	res, err := w.send(t, a, b, a) // a twice: a signal the relay delivered twice
	if err != nil || res.Sent != 2 || res.Skipped != 0 {
		t.Fatalf("send: %+v %v", res, err)
	}
	msgs := w.smtp.Wait(1, 30*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("%d emails, want one digest", len(msgs))
	}
	m := msgs[0]
	if len(m.To) != 1 || m.To[0] != w.recipient.Email || !strings.Contains(m.Header.Get("To"), "Grace Hopper") {
		t.Fatalf("to %v / %q", m.To, m.Header.Get("To"))
	}
	if m.Subject != "2 new notifications" {
		t.Fatalf("subject %q", m.Subject)
	}
	link := "https://tracker.example/api/v1/tickets/" + w.ticket.ID.String()
	for _, want := range []string{"Ada Lovelace mentioned you on ENG-1 Fix the <engine>", "@grace look at this",
		"Ada Lovelace assigned you on ENG-1", link, "Analytical"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text part lacks %q:\n%s", want, m.Text)
		}
	}
	for _, want := range []string{`<a href="` + link + `">Ada Lovelace mentioned you on ENG-1 Fix the &lt;engine&gt;</a>`,
		"@grace look at this"} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("html part lacks %q:\n%s", want, m.HTML)
		}
	}
	unsub := m.Header.Get("List-Unsubscribe")
	if !strings.HasPrefix(unsub, "<https://tracker.example/api/v1/email/unsubscribe?token=") || !strings.HasSuffix(unsub, ">") {
		t.Fatalf("List-Unsubscribe %q", unsub)
	}
	if got := m.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
		t.Fatalf("List-Unsubscribe-Post %q", got)
	}
	if !strings.Contains(m.Text, strings.Trim(unsub, "<>")) {
		t.Errorf("the text part does not carry the unsubscribe link")
	}

	t.Run("a rerun of the same digest sends nothing", func(t *testing.T) {
		res, err := w.send(t, a, b)
		if err != nil || res.Sent != 0 {
			t.Fatalf("send again: %+v %v", res, err)
		}
		if n := len(w.smtp.Messages()); n != 1 {
			t.Fatalf("%d emails", n)
		}
	})

	t.Run("the link's token turns email off; another token is not found", func(t *testing.T) {
		token := strings.TrimPrefix(strings.Trim(unsub, "<>"), "https://tracker.example/api/v1/email/unsubscribe?token=")
		if err := w.svc.Unsubscribe(context.Background(), token+"x"); domain.AsError(err).Kind != domain.KindNotFound {
			t.Fatalf("forged token: %v", err)
		}
		if err := w.svc.Unsubscribe(context.Background(), token); err != nil {
			t.Fatal(err)
		}
		s := w.settings(t)
		if s.EmailEnabled || s.EmailDisabledReason == nil || *s.EmailDisabledReason != delivery.ReasonUnsubscribed {
			t.Fatalf("settings %+v", s)
		}
		res, err := w.send(t, w.notify(t, notification.TypeCommented, "more"))
		if err != nil || res.Sent != 0 || len(w.smtp.Messages()) != 1 {
			t.Fatalf("sent with email off: %+v %v", res, err)
		}
	})
}

func TestDigestDropsWhatTheRecipientMayNoLongerBeTold(t *testing.T) {
	w := newWorld(t)
	ctx := context.Background()
	kept := w.notify(t, notification.TypeAssigned, "")
	off := w.notify(t, notification.TypeCommented, "a comment")
	// The type turned off after the notification was written.
	if err := notificationdb.PutSettings(ctx, w.db.Q(), w.recipient.ID, notificationdb.Settings{EmailEnabled: true,
		DigestMinutes: 10, TypesOff: []string{notification.TypeCommented}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	res, err := w.send(t, kept, off)
	if err != nil || res.Sent != 1 || res.Skipped != 1 {
		t.Fatalf("send: %+v %v", res, err)
	}
	if m := w.smtp.Wait(1, 30*time.Second)[0]; strings.Contains(m.Text, "a comment") || m.Subject != "Ada Lovelace assigned you on ENG-1 Fix the <engine>" {
		t.Fatalf("subject %q text %s", m.Subject, m.Text)
	}

	// The recipient loses access (removed from the org) before the send.
	lost := w.notify(t, notification.TypeMentioned, "secret plans")
	if _, err := w.db.Pool.Exec(ctx, `DELETE FROM memberships WHERE user_id = $1`, w.recipient.ID); err != nil {
		t.Fatal(err)
	}
	res, err = w.send(t, lost)
	if err != nil || res.Sent != 0 || res.Skipped != 1 {
		t.Fatalf("send after losing access: %+v %v", res, err)
	}
	if n := len(w.smtp.Messages()); n != 1 {
		t.Fatalf("%d emails: someone who lost access was told", n)
	}
}

func TestARefusedAddressStopsEmailAndABusyServerIsRetried(t *testing.T) {
	w := newWorld(t)
	id := w.notify(t, notification.TypeAssigned, "")

	w.smtp.Refuse(w.recipient.Email, 451, 0)
	if _, err := w.send(t, id); err == nil || !strings.Contains(err.Error(), "451") {
		t.Fatalf("a 451 is an error for the retry policy, got %v", err)
	}
	if s := w.settings(t); !s.EmailEnabled {
		t.Fatal("a temporary failure turned email off")
	}
	if res, err := w.send(t, id); err != nil || res.Sent != 1 { // the retry
		t.Fatalf("retry: %+v %v", res, err)
	}
	w.smtp.Wait(1, 30*time.Second)

	w.smtp.Refuse(w.recipient.Email, 550)
	res, err := w.send(t, w.notify(t, notification.TypeMentioned, "hello"))
	if err != nil || !res.Refused {
		t.Fatalf("a 550 to the address: %+v %v", res, err)
	}
	s := w.settings(t)
	if s.EmailEnabled || s.EmailDisabledReason == nil || !strings.HasPrefix(*s.EmailDisabledReason, delivery.ReasonRefused) ||
		!strings.Contains(*s.EmailDisabledReason, "550") {
		t.Fatalf("settings after a refusal: %+v", s)
	}
	w.smtp.Refuse(w.recipient.Email, 0)
	if res, err := w.send(t, w.notify(t, notification.TypeMentioned, "again")); err != nil || res.Sent != 0 {
		t.Fatalf("sent after the refusal: %+v %v", res, err)
	}
	if n := len(w.smtp.Messages()); n != 1 {
		t.Fatalf("%d emails", n)
	}
	// The person turning email on again clears the reason.
	if err := notificationdb.PutSettings(context.Background(), w.db.Q(), w.recipient.ID, notificationdb.Settings{EmailEnabled: true,
		DigestMinutes: 10}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if s := w.settings(t); !s.EmailEnabled || s.EmailDisabledReason != nil {
		t.Fatalf("settings after turning email on: %+v", s)
	}
}

// TestEveryTypeReachesEmail: a notification of each type goes into the
// digest with its own headline and excerpt.
func TestEveryTypeReachesEmail(t *testing.T) {
	w := newWorld(t)
	ids := make([]uuid.UUID, 0, len(notification.Types))
	for _, typ := range notification.Types {
		ids = append(ids, w.notify(t, typ, "about "+typ))
	}
	res, err := w.send(t, ids...)
	if err != nil || res.Sent != len(notification.Types) || res.Skipped != 0 {
		t.Fatalf("send: %+v %v", res, err)
	}
	msgs := w.smtp.Wait(1, 30*time.Second)
	if len(msgs) != 1 {
		t.Fatalf("%d emails, want one digest", len(msgs))
	}
	m := msgs[0]
	for _, typ := range notification.Types {
		if !strings.Contains(m.Text, `"about `+typ+`"`) || !strings.Contains(m.HTML, "about "+typ) {
			t.Errorf("%s: not in the digest:\n%s", typ, m.Text)
		}
		if strings.Contains(m.Text, ": "+typ+" ") {
			t.Errorf("%s: no headline of its own (the fallback):\n%s", typ, m.Text)
		}
	}
}
