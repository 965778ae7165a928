package worker

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/webhookdb"
)

// hit is one request a receiver got.
type hit struct {
	Header http.Header
	Body   []byte
	Event  domain.Event
	Valid  bool
}

// receiver is a webhook endpoint on 127.0.0.1; answer picks the status of
// the n-th request (from 1).
type receiver struct {
	*httptest.Server
	secret string
	mu     sync.Mutex
	hits   []hit
	answer func(n int) int
}

func newReceiver(t *testing.T, answer func(n int) int) *receiver {
	r := &receiver{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		h := hit{Header: req.Header.Clone(), Body: b}
		h.Valid = webhook.Verify(r.secret, req.Header, b, time.Minute, time.Now()) == nil
		_ = json.Unmarshal(b, &h.Event)
		r.hits = append(r.hits, h)
		n := len(r.hits)
		r.mu.Unlock()
		w.WriteHeader(r.answer(n))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) got() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

// waitFor polls cond until it holds or the timeout passes. The timeout is
// stretched sixfold: the whole suite shares two cores, and a slow pass is
// not a failure (the wait ends as soon as cond holds).
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout *= 6
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// newOrgHook makes an org and a webhook to url for types.
func newOrgHook(t *testing.T, db *store.DB, url string, types ...string) (uuid.UUID, webhookdb.Row) {
	t.Helper()
	ctx := context.Background()
	org := domain.NewID()
	if _, err := db.Q().Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, 'o', $2)`, org, org.String()); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	w := webhookdb.Row{ID: domain.NewID(), OrgID: org, URL: url, Secret: webhook.NewSecret(), EventTypes: types,
		Active: true, CreatedAt: now, UpdatedAt: now}
	if err := webhookdb.Insert(ctx, db.Q(), w); err != nil {
		t.Fatal(err)
	}
	return org, w
}

// emit records a change with events, as a feature's use case does.
func emit(t *testing.T, db *store.DB, org uuid.UUID, types ...string) {
	t.Helper()
	ctx := context.Background()
	err := db.InTx(ctx, func(q store.Querier) error {
		return domain.Record(ctx, q, domain.Change{At: time.Now(), OrgID: org, EntityType: "ticket", EntityID: domain.NewID(),
			Action: "updated", Events: types, Data: map[string]any{"title": "T"},
			Changes: []domain.FieldChange{{Field: "title", Old: "S", New: "T"}}})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runWorker runs Run in the background; the returned stop ends it and
// waits for it.
func runWorker(t *testing.T, d Deps) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	if d.Log == nil {
		level := slog.LevelError
		if os.Getenv("WORKER_TEST_LOG") != "" {
			level = slog.LevelDebug
		}
		d.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	}
	if d.Metrics == nil {
		d.Metrics = prometheus.NewRegistry()
	}
	if d.Namespace == "" {
		d.Namespace = "default"
	}
	if d.TaskQueue == "" {
		d.TaskQueue = "test-" + uuid.NewString()[:8]
	}
	d.PollInterval = 500 * time.Millisecond
	if d.StopTimeout == 0 {
		d.StopTimeout = 5 * time.Second
	}
	d.Webhooks.AllowPrivate = true
	go func() { done <- Run(ctx, d) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(30 * time.Second):
				t.Error("Run did not return after cancel")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}
