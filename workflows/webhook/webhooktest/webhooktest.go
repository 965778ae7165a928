// Package webhooktest is a webhook endpoint for tests of delivery: a real
// HTTP server on 127.0.0.1 that records every request it gets and checks
// its signature, for webhookwf's worker tests and the binary's e2e tests.
package webhooktest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/webhook"
)

// Event is a delivered event as a receiver decodes it (Data a JSON
// object).
type Event struct {
	ID        uuid.UUID            `json:"id"`
	Type      string               `json:"type"`
	CreatedAt time.Time            `json:"created_at"`
	OrgID     uuid.UUID            `json:"org_id"`
	Data      map[string]any       `json:"data"`
	Changes   []domain.FieldChange `json:"changes"`
}

// Hit is one request a receiver got; SigErr is webhook.Verify's answer for
// it with the receiver's secret at the time (nil: validly signed).
type Hit struct {
	Header http.Header
	Body   []byte
	Event  Event
	SigErr error
}

// Receiver is a webhook endpoint; answer picks the status of the n-th
// request (from 1).
type Receiver struct {
	*httptest.Server
	mu     sync.Mutex
	secret string
	hits   []Hit
	answer func(n int) int
}

// OK answers every request 200.
func OK(int) int { return 200 }

// NewReceiver starts a receiver; it closes when the test ends. Requests
// are verified against the secret given by SetSecret (none before).
func NewReceiver(t testing.TB, answer func(n int) int) *Receiver {
	r := &Receiver{answer: answer}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		h := Hit{Header: req.Header.Clone(), Body: b}
		h.SigErr = webhook.Verify(r.secret, req.Header, b, 5*time.Minute, time.Now())
		_ = json.Unmarshal(b, &h.Event)
		r.hits = append(r.hits, h)
		n := len(r.hits)
		r.mu.Unlock()
		w.WriteHeader(r.answer(n))
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(r.Close)
	return r
}

// SetSecret sets the webhook's signing secret the receiver verifies with.
func (r *Receiver) SetSecret(s string) {
	r.mu.Lock()
	r.secret = s
	r.mu.Unlock()
}

// Hits are the requests received so far, in order.
func (r *Receiver) Hits() []Hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Hit(nil), r.hits...)
}

// Types counts the requests received so far by event type.
func (r *Receiver) Types() map[string]int {
	out := map[string]int{}
	for _, h := range r.Hits() {
		out[h.Event.Type]++
	}
	return out
}
