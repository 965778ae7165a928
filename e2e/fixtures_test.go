package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/workflows/webhook/webhooktest"
)

// receiver is the shared webhook endpoint (webhooktest.Receiver) under the
// names this package's tests use.
type receiver struct{ *webhooktest.Receiver }

type hit = webhooktest.Hit

func newReceiver(t *testing.T, answer func(n int) int) *receiver {
	return &receiver{webhooktest.NewReceiver(t, answer)}
}

var ok = webhooktest.OK

func (r *receiver) setSecret(s string)    { r.SetSecret(s) }
func (r *receiver) got() []hit            { return r.Hits() }
func (r *receiver) types() map[string]int { return r.Types() }

// createWebhook registers a webhook to rcv through the API.
func (s *stack) createWebhook(u user, rcv *receiver, types ...string) uuid.UUID {
	s.t.Helper()
	w := s.must(201, "POST", "/orgs/"+u.OrgID.String()+"/webhooks", u.Token,
		map[string]any{"url": rcv.URL + "/hooks", "event_types": types}).m(s.t)
	rcv.setSecret(w["secret"].(string))
	return uuid.MustParse(w["id"].(string))
}

// openDB opens the test's database for fixtures and checks.
func openDB(t *testing.T, url string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// emitDirect writes an event the way a feature's use case does, for
// features whose endpoints are not mounted in this build.
func emitDirect(t *testing.T, db *store.DB, org uuid.UUID, typ string, data map[string]any) {
	t.Helper()
	ctx := context.Background()
	err := db.InTx(ctx, func(q store.Querier) error {
		return domain.Record(ctx, q, domain.Change{At: time.Now(), OrgID: org, EntityType: "ticket", EntityID: domain.NewID(),
			Action: typ, Events: []string{typ}, Data: data})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scalar runs a count.
func scalar(t *testing.T, db *store.DB, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Q().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func sqlExec(t *testing.T, db *store.DB, sql string, args ...any) {
	t.Helper()
	if _, err := db.Q().Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// createProject makes a project through the API, or directly when the
// projects feature is not mounted.
func (s *stack) createProject(db *store.DB, u user, key string) uuid.UUID {
	s.t.Helper()
	r := s.do("POST", "/projects", u.Token, map[string]any{"org_id": u.OrgID, "key": key, "name": "Project " + key})
	if r.routeMissing() {
		return testfactory.Project(s.t, db, u.OrgID, testfactory.ProjectOpts{Key: key, Name: key}).ID
	}
	if r.Status != 201 {
		s.t.Fatalf("create project: %d %s", r.Status, r.Body)
	}
	return uuid.MustParse(r.m(s.t)["id"].(string))
}

// createTicket makes a ticket through the API (ticket.created), or emits
// the event directly when the tickets feature is not mounted.
func (s *stack) createTicket(db *store.DB, u user, project uuid.UUID, title string) (uuid.UUID, bool) {
	s.t.Helper()
	r := s.do("POST", "/projects/"+project.String()+"/tickets", u.Token, map[string]any{"title": title})
	if r.routeMissing() {
		emitDirect(s.t, db, u.OrgID, domain.EventTicketCreated, map[string]any{"title": title})
		return uuid.Nil, false
	}
	if r.Status != 201 {
		s.t.Fatalf("create ticket: %d %s", r.Status, r.Body)
	}
	return uuid.MustParse(r.m(s.t)["id"].(string)), true
}
