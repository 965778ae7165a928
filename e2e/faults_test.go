package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/webhook"
)

// The fault suite (TestFault*): each case breaks one part of the running
// service under load and asserts that nothing is lost and nothing is done
// twice under different ids. `make test` runs a short version; `make
// faults` sets FAULTS=long for the counts and durations the docs quote.

// faultsLong reports whether the long version runs.
func faultsLong() bool { return os.Getenv("FAULTS") == "long" }

// pick is short in `make test` and long under FAULTS=long.
func pick[T any](short, long T) T {
	if faultsLong() {
		return long
	}
	return short
}

// figures are one fault case's counts, printed in one line (FAULT …) and
// checked: lost and duplicated must be 0.
type figures struct {
	name                                            string
	attempted, succeeded, retried, lost, duplicated atomic.Int64
	recovery                                        time.Duration
}

func (f *figures) report(t *testing.T) {
	t.Helper()
	line := fmt.Sprintf("FAULT %-26s attempted=%d succeeded=%d retried=%d lost=%d duplicated=%d recovery=%s",
		f.name, f.attempted.Load(), f.succeeded.Load(), f.retried.Load(), f.lost.Load(), f.duplicated.Load(),
		f.recovery.Round(10*time.Millisecond))
	t.Log(line)
	if f.lost.Load() != 0 || f.duplicated.Load() != 0 {
		t.Errorf("%s: %d lost, %d duplicated", f.name, f.lost.Load(), f.duplicated.Load())
	}
	if f.succeeded.Load() != f.attempted.Load() {
		t.Errorf("%s: %d of %d operations succeeded", f.name, f.succeeded.Load(), f.attempted.Load())
	}
}

// faultClient is an API client that retries as a careful client does: a 503
// after its Retry-After (capped, so that the case measures the service, not
// the wait), a transport error on the next base URL when failover is on.
// Every answer is checked: a 5xx other than a well-formed 503 (Retry-After
// and the error envelope), or an answer slower than maxAnswer, fails the
// test.
type faultClient struct {
	t         *testing.T
	bases     []string
	token     string
	failover  bool          // a transport error retries on the next base (a killed replica)
	retryCap  time.Duration // the longest wait between retries
	maxAnswer time.Duration // the slowest acceptable answer
	giveUp    time.Duration // one operation's retries end after this
	http      *http.Client
	unavail   atomic.Int64 // 503s seen
	// outage is the longest time one operation took from its first 503 or
	// transport error to its answer: the recovery a client sees.
	outage atomic.Int64
}

func newFaultClient(t *testing.T, token string, bases ...string) *faultClient {
	return &faultClient{t: t, bases: bases, token: token, retryCap: 500 * time.Millisecond,
		maxAnswer: 10 * time.Second, giveUp: 5 * time.Minute, http: &http.Client{Timeout: 30 * time.Second}}
}

// call runs one operation until it gets an answer that is not a 503 (or a
// transport error under failover); base is the index of the first base URL
// to try. It returns the final answer and the number of retries.
func (c *faultClient) call(base int, method, path string, body any, key string) (resp, int) {
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	start := time.Now()
	var failed time.Time
	for retries := 0; ; retries++ {
		if time.Since(start) > c.giveUp {
			c.t.Errorf("%s %s: no answer but 503s or transport errors for %s", method, path, c.giveUp)
			return resp{}, retries
		}
		req, _ := http.NewRequest(method, c.bases[base%len(c.bases)]+"/api/v1"+path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+c.token)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		sent := time.Now()
		res, err := c.http.Do(req)
		took := time.Since(sent)
		if failed.IsZero() && (err != nil || res.StatusCode == http.StatusServiceUnavailable) {
			failed = sent
		}
		if took > c.maxAnswer {
			c.t.Errorf("%s %s: answered after %s (err %v)", method, path, took.Round(time.Millisecond), err)
		}
		if err != nil {
			if !c.failover {
				c.t.Errorf("%s %s: %v", method, path, err)
				return resp{}, retries
			}
			base++
			time.Sleep(50 * time.Millisecond)
			continue
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if key != "" && res.StatusCode == http.StatusConflict && bytes.Contains(b, []byte("still being processed")) {
			// The first request with this key still holds it (its replica
			// died mid-request and PostgreSQL has not yet ended its
			// session): the documented answer is to retry later.
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if res.StatusCode != http.StatusServiceUnavailable {
			if !failed.IsZero() {
				d := int64(time.Since(failed))
				for old := c.outage.Load(); d > old && !c.outage.CompareAndSwap(old, d); old = c.outage.Load() {
				}
			}
			if res.StatusCode >= 500 {
				c.t.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
			}
			return resp{Status: res.StatusCode, Body: b}, retries
		}
		c.unavail.Add(1)
		wait := c.check503(method, path, res.Header.Get("Retry-After"), b)
		time.Sleep(min(wait, c.retryCap))
	}
}

// check503 asserts the 503's Retry-After and envelope and returns the wait.
func (c *faultClient) check503(method, path, retryAfter string, body []byte) time.Duration {
	secs, err := strconv.Atoi(retryAfter)
	if err != nil || secs < 1 {
		c.t.Errorf("%s %s: 503 with Retry-After %q", method, path, retryAfter)
	}
	var env struct {
		Error struct {
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Details []string `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error.Code != "SERVICE_UNAVAILABLE" || env.Error.Message == "" || env.Error.Details == nil {
		c.t.Errorf("%s %s: 503 without the envelope: %s", method, path, body)
	}
	return time.Duration(secs) * time.Second
}

// creates runs a create with a fresh Idempotency-Key per logical operation,
// retried with the same key, and records the id of each success under its
// title.
type creates struct {
	mu  sync.Mutex
	ids map[string]uuid.UUID // title -> id
}

func (cr *creates) add(title string, id uuid.UUID) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.ids == nil {
		cr.ids = map[string]uuid.UUID{}
	}
	cr.ids[title] = id
}

func (cr *creates) snapshot() map[string]uuid.UUID {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	out := make(map[string]uuid.UUID, len(cr.ids))
	for k, v := range cr.ids {
		out[k] = v
	}
	return out
}

// createTicketRetried creates a ticket titled title in project through c,
// retrying under one Idempotency-Key, and counts it in f.
func createTicketRetried(c *faultClient, f *figures, cr *creates, base int, project uuid.UUID, title string) {
	f.attempted.Add(1)
	r, retries := c.call(base, "POST", "/projects/"+project.String()+"/tickets", map[string]any{"title": title}, uuid.NewString())
	f.retried.Add(int64(retries))
	if r.Status != http.StatusCreated {
		c.t.Errorf("create %s: %d %s", title, r.Status, r.Body)
		return
	}
	var tk struct {
		ID uuid.UUID `json:"id"`
	}
	if err := json.Unmarshal(r.Body, &tk); err != nil {
		c.t.Errorf("create %s: %v", title, err)
		return
	}
	f.succeeded.Add(1)
	cr.add(title, tk.ID)
}

// checkTickets counts, among the project's tickets whose title starts with
// prefix, the created ones missing (lost) and the titles stored more than
// once (duplicated: one operation done twice under different ids).
func checkTickets(t *testing.T, dbURL string, project uuid.UUID, prefix string, cr *creates, f *figures) {
	t.Helper()
	db := openDB(t, dbURL)
	rows, err := db.Pool.Query(context.Background(),
		`SELECT title, array_agg(id) FROM tickets WHERE project_id = $1 AND starts_with(title, $2) GROUP BY title`, project, prefix)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string][]uuid.UUID{}
	for rows.Next() {
		var title string
		var ids []uuid.UUID
		if err := rows.Scan(&title, &ids); err != nil {
			t.Fatal(err)
		}
		stored[title] = ids
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for title, id := range cr.snapshot() {
		if ids := stored[title]; !slices.Contains(ids, id) {
			f.lost.Add(1)
			t.Errorf("ticket %q (%s) answered 201 but is not stored: %v", title, id, ids)
		}
	}
	for title, ids := range stored {
		if len(ids) > 1 {
			f.duplicated.Add(int64(len(ids) - 1))
			t.Errorf("ticket %q stored %d times: %v", title, len(ids), ids)
		}
	}
}

// waitDeliveries waits until rcv got a ticket.created for every ticket in
// cr, then counts the tickets never delivered (lost) and those delivered
// under more than one delivery id or event id (duplicated).
func waitDeliveries(t *testing.T, rcv *receiver, cr *creates, f *figures, timeout time.Duration) {
	t.Helper()
	want := cr.snapshot()
	byTicket := func() map[string]map[string]bool {
		m := map[string]map[string]bool{}
		for _, h := range rcv.got() {
			id, _ := h.Event.Data["id"].(string)
			if m[id] == nil {
				m[id] = map[string]bool{}
			}
			m[id][h.Header.Get(webhook.HeaderDelivery)+"/"+h.Event.ID.String()] = true
		}
		return m
	}
	deadline := time.Now().Add(timeout)
	for {
		got := byTicket()
		missing := 0
		for _, id := range want {
			if len(got[id.String()]) == 0 {
				missing++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			f.lost.Add(int64(missing))
			if missing > 0 {
				t.Errorf("%d of %d tickets never delivered to the webhook", missing, len(want))
			}
			for id, keys := range got {
				if len(keys) > 1 {
					f.duplicated.Add(int64(len(keys) - 1))
					t.Errorf("ticket %s delivered under %d delivery or event ids: %v", id, len(keys), keys)
				}
			}
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}
