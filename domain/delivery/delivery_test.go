package delivery_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/chat"
	"tracker/domain/delivery"
	"tracker/domain/notification"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/chatdb"
	"tracker/store/notificationdb"
	"tracker/store/storetest"
)

// TestQueueChat: a notification becomes a direct message (a chat delivery
// record addressed to the linked chat user, and its outbox job) only for a
// recipient who linked a chat identity in the notification's org and has
// chat on, while they may still be told; queueing twice queues once.
func TestQueueChat(t *testing.T) {
	db := storetest.New(t)
	ctx := context.Background()
	actor := testfactory.User(t, db, testfactory.UserOpts{Name: "Ada"})
	org := testfactory.Org(t, db, actor.ID, testfactory.OrgOpts{})
	project := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{Key: "CHT"})
	ticket := testfactory.Ticket(t, db, project, actor.ID, testfactory.TicketOpts{Title: "Talk <loud>"})
	svc := delivery.New(db, domain.SystemClock{}, "http://tracker.test", []byte("k"))

	member := func(link string) uuid.UUID {
		u := testfactory.User(t, db, testfactory.UserOpts{})
		testfactory.Member(t, db, org.ID, u.ID, testfactory.MemberOpts{})
		if link != "" {
			if _, err := chatdb.LinkIdentity(ctx, db.Q(), chatdb.Identity{OrgID: org.ID, UserID: u.ID, SlackUserID: link, CreatedAt: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		return u.ID
	}
	notify := func(user uuid.UUID) uuid.UUID {
		e := notification.Event{OrgID: org.ID, ProjectID: project.ID, TicketID: &ticket.ID, ActorID: &actor.ID, Excerpt: "a & b", At: time.Now()}
		e.Tell(user, notification.TypeAssigned)
		if err := db.InTx(ctx, func(q store.Querier) error { return notification.Emit(ctx, q, e) }); err != nil {
			t.Fatal(err)
		}
		id, err := notificationdb.Newest(ctx, db.Q(), user)
		if err != nil || id == uuid.Nil {
			t.Fatalf("no notification: %v", err)
		}
		return id
	}
	jobs := func(id uuid.UUID) int {
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE topic = $1 AND payload->>'notification_id' = $2`,
			chat.TopicNotify, id.String()).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	linked := member("ULINKED")
	id := notify(linked)
	for range 2 {
		if _, err := svc.QueueChat(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	n, err := chatdb.GetNotification(ctx, db.Q(), id)
	if err != nil {
		t.Fatal(err)
	}
	want := "<http://tracker.test/api/v1/tickets/" + ticket.ID.String() + "|Ada assigned you on CHT-1 Talk &lt;loud&gt;>\n> a &amp; b"
	if n.ChannelID != "ULINKED" || n.Text != want || n.Status != "queued" || n.NotificationType != delivery.ChatType {
		t.Fatalf("delivery record %+v", n)
	}
	if j := jobs(id); j != 1 {
		t.Fatalf("%d outbox jobs, want 1", j)
	}

	off := member("UOFF")
	no := false
	if err := notificationdb.PutSettings(ctx, db.Q(), off, notificationdb.Settings{EmailEnabled: true, DigestMinutes: 10, ChatEnabled: &no}, time.Now()); err != nil {
		t.Fatal(err)
	}
	typeOff := member("UTYPEOFF")
	lost := member("ULOST")
	cases := map[string]uuid.UUID{"chat off": notify(off), "not linked": notify(member(""))}
	cases["type turned off"] = notify(typeOff)
	if err := notificationdb.PutSettings(ctx, db.Q(), typeOff, notificationdb.Settings{EmailEnabled: true, DigestMinutes: 10,
		TypesOff: []string{notification.TypeAssigned}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	cases["lost access"] = notify(lost)
	if _, err := db.Pool.Exec(ctx, `DELETE FROM memberships WHERE user_id = $1`, lost); err != nil {
		t.Fatal(err)
	}
	for name, id := range cases {
		queued, err := svc.QueueChat(ctx, id)
		if err != nil || queued || jobs(id) != 0 {
			t.Errorf("%s: queued %v, %d jobs, %v", name, queued, jobs(id), err)
		}
	}
}

// TestEveryTypeReachesChat: a notification of each type becomes a direct
// message to a linked recipient, with its own headline and its excerpt.
func TestEveryTypeReachesChat(t *testing.T) {
	db := storetest.New(t)
	ctx := context.Background()
	actor := testfactory.User(t, db, testfactory.UserOpts{Name: "Ada"})
	org := testfactory.Org(t, db, actor.ID, testfactory.OrgOpts{})
	project := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{Key: "TYP"})
	ticket := testfactory.Ticket(t, db, project, actor.ID, testfactory.TicketOpts{Title: "Each type"})
	svc := delivery.New(db, domain.SystemClock{}, "http://tracker.test", []byte("k"))
	u := testfactory.User(t, db, testfactory.UserOpts{})
	testfactory.Member(t, db, org.ID, u.ID, testfactory.MemberOpts{})
	if _, err := chatdb.LinkIdentity(ctx, db.Q(), chatdb.Identity{OrgID: org.ID, UserID: u.ID, SlackUserID: "UTYPES", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, typ := range notification.Types {
		e := notification.Event{OrgID: org.ID, ProjectID: project.ID, TicketID: &ticket.ID, ActorID: &actor.ID, Excerpt: "about " + typ, At: time.Now()}
		e.Tell(u.ID, typ)
		if err := db.InTx(ctx, func(q store.Querier) error { return notification.Emit(ctx, q, e) }); err != nil {
			t.Fatal(err)
		}
		id, err := notificationdb.Newest(ctx, db.Q(), u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if queued, err := svc.QueueChat(ctx, id); err != nil || !queued {
			t.Fatalf("%s: queued %v, %v", typ, queued, err)
		}
		n, err := chatdb.GetNotification(ctx, db.Q(), id)
		if err != nil {
			t.Fatal(err)
		}
		if n.ChannelID != "UTYPES" || !strings.Contains(n.Text, "> about "+typ) || strings.Contains(n.Text, ": "+typ+" ") {
			t.Errorf("%s: message %q to %s", typ, n.Text, n.ChannelID)
		}
	}
}
