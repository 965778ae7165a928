package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	enums "go.temporal.io/api/enums/v1"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/internal/stackrun"
	"tracker/store"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// replicatedRateLimit is the stack's SERVICE_RATE_LIMIT: low enough that
// the rate-limit case exhausts one replica's bucket in a few seconds, high
// enough that no other case's polling comes near it.
const replicatedRateLimit = 900

// replicated is the production shape the cases share: 2 API and 2 worker
// processes of the real binary behind the round-robin proxy, one database,
// one Temporal dev server.
type replicated struct {
	*stackrun.Stack
	db       *store.DB
	temporal *workertest.Server
	// kills serializes the cases that kill a worker: two such cases at
	// once could kill both workers and wait forever for each other.
	kills sync.Mutex
}

// on is the harness's client for one case, through base (the proxy, or one
// replica's own address).
func (r *replicated) on(t *testing.T, base string) *stack {
	return &stack{t: t, BaseURL: base, Temporal: r.temporal}
}

// TestReplicated runs the cases a deployment of several replicas relies on
// against one replicated stack, in parallel: an Idempotency-Key replayed on
// the other replica, ETag/If-Match across replicas, the rate limit's
// per-replica buckets, webhook fan-out shared by two workers, and an import
// and a cascade delete that survive the SIGKILL of the worker running them.
func TestReplicated(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	logs := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	st, err := stackrun.Start(ctx, stackrun.Config{Binary: binary(t), DatabaseURL: url, TemporalAddress: srv.Address,
		APIs: 2, Workers: 2, LogDir: logs, Env: map[string]string{
			"SERVICE_TEMPORAL_NAMESPACE":       "default",
			"SERVICE_TASK_QUEUE":               "e2e-" + uuid.NewString()[:8],
			"SERVICE_WEBHOOK_ALLOW_PRIVATE":    "true",
			"SERVICE_LOG_LEVEL":                "info",
			"SERVICE_RATE_LIMIT":               strconv.Itoa(replicatedRateLimit),
			"TRACKER_TEST_WEBHOOK_RETRY_SCALE": "0.001",
			// Small, slow batches, so that a kill lands mid-import and mid-purge.
			// The import's pauses alone (12 batches of 40) must outlast the
			// API's 3 s wait, however fast the machine, for it to answer 202.
			"TRACKER_TEST_IMPORT_BATCH":  "40",
			"TRACKER_TEST_IMPORT_PAUSE":  "400ms",
			"TRACKER_TEST_CASCADE_BATCH": "25",
			"TRACKER_TEST_CASCADE_PAUSE": "150ms",
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = st.Close()
		if t.Failed() {
			for _, p := range st.Procs() {
				t.Logf("--- tail of %s's log ---\n%s", p.Name, p.LogTail(4000))
			}
		}
	})
	r := &replicated{Stack: st, db: db, temporal: srv}

	t.Run("IdempotencyKeyAcrossReplicas", func(t *testing.T) { t.Parallel(); replicatedIdempotency(t, r) })
	t.Run("ETagAcrossReplicas", func(t *testing.T) { t.Parallel(); replicatedETag(t, r) })
	t.Run("RateLimitPerReplica", func(t *testing.T) { t.Parallel(); replicatedRateLimitCase(t, r) })
	t.Run("FanOutOnTwoWorkers", func(t *testing.T) { t.Parallel(); replicatedFanOut(t, r) })
	t.Run("ImportSurvivesItsWorkersKill", func(t *testing.T) { t.Parallel(); replicatedImport(t, r) })
	t.Run("CascadeSurvivesItsWorkersKill", func(t *testing.T) { t.Parallel(); replicatedCascade(t, r) })
}

// hresp is an answer with its headers.
type hresp struct {
	Status int
	Header http.Header
	Body   []byte
}

// send calls base+/api/v1+path with a JSON body and extra headers.
func send(t *testing.T, base, method, path, token string, body any, headers map[string]string) hresp {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, base+"/api/v1"+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return hresp{Status: res.StatusCode, Header: res.Header, Body: b}
}

// replicatedIdempotency: a create sent to one replica and retried with its
// Idempotency-Key on the other gets the first answer again and makes one
// ticket; the same key sent to both at once makes one ticket too, the
// loser answering 409 (in progress) or the replay.
func replicatedIdempotency(t *testing.T, r *replicated) {
	s := r.on(t, r.URL)
	u := s.register("idem")
	project := s.createProject(r.db, u, "IDEM")
	a, b := r.APIs[0].URL, r.APIs[1].URL
	path := "/projects/" + project.String() + "/tickets"
	body := map[string]any{"title": "made once"}
	key := map[string]string{"Idempotency-Key": uuid.NewString()}

	first := send(t, a, "POST", path, u.Token, body, key)
	if first.Status != 201 || first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first create on api-1: %d %v %s", first.Status, first.Header, first.Body)
	}
	again := send(t, b, "POST", path, u.Token, body, key)
	if again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) ||
		again.Header.Get("ETag") != first.Header.Get("ETag") || again.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("the retry on api-2 did not replay the first answer: %d %v %s, first %s", again.Status, again.Header, again.Body, first.Body)
	}
	// The same key with another body is refused on either replica.
	if other := send(t, b, "POST", path, u.Token, map[string]any{"title": "something else"}, key); other.Status != 422 && other.Status != 409 {
		t.Fatalf("the key reused with another body on api-2: %d %s", other.Status, other.Body)
	}

	// Both replicas at once, ten times: each key makes one ticket.
	const pairs = 10
	var wg sync.WaitGroup
	answers := make([][2]hresp, pairs)
	for i := 0; i < pairs; i++ {
		k := map[string]string{"Idempotency-Key": uuid.NewString()}
		b := map[string]any{"title": fmt.Sprintf("raced %d", i)}
		for j, base := range []string{a, r.APIs[1].URL} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := send(t, base, "POST", path, u.Token, b, k)
				// 409: in progress on the other replica; retry as a client would.
				for try := 0; res.Status == 409 && try < 40; try++ {
					time.Sleep(250 * time.Millisecond)
					res = send(t, base, "POST", path, u.Token, b, k)
				}
				answers[i][j] = res
			}()
		}
	}
	wg.Wait()
	for i, pair := range answers {
		if pair[0].Status != 201 || pair[1].Status != 201 || !bytes.Equal(pair[0].Body, pair[1].Body) {
			t.Errorf("pair %d: %d %s / %d %s", i, pair[0].Status, pair[0].Body, pair[1].Status, pair[1].Body)
		}
	}
	if n := scalar(t, r.db, `SELECT count(*) FROM tickets WHERE project_id = $1`, project); n != 1+pairs {
		t.Fatalf("%d tickets, want %d (one per key)", n, 1+pairs)
	}
}

// replicatedETag: the entity tag one replica gives is honoured by the
// other: If-Match with the current tag writes, with a stale one 412, and
// If-None-Match with the current tag 304.
func replicatedETag(t *testing.T, r *replicated) {
	s := r.on(t, r.URL)
	u := s.register("etag")
	project := s.createProject(r.db, u, "ETAG")
	id, _ := s.createTicket(r.db, u, project, "versioned")
	a, b := r.APIs[0].URL, r.APIs[1].URL
	path := "/tickets/" + id.String()

	got := send(t, a, "GET", path, u.Token, nil, nil)
	tag := got.Header.Get("ETag")
	if got.Status != 200 || tag == "" {
		t.Fatalf("GET on api-1: %d %v", got.Status, got.Header)
	}
	upd := send(t, b, "PATCH", path, u.Token, map[string]any{"title": "changed on api-2"}, map[string]string{"If-Match": tag})
	newTag := upd.Header.Get("ETag")
	if upd.Status != 200 || newTag == "" || newTag == tag {
		t.Fatalf("PATCH on api-2 with api-1's tag: %d %v %s", upd.Status, upd.Header, upd.Body)
	}
	if stale := send(t, a, "PATCH", path, u.Token, map[string]any{"title": "lost update"}, map[string]string{"If-Match": tag}); stale.Status != 412 {
		t.Fatalf("PATCH on api-1 with the stale tag: %d %s", stale.Status, stale.Body)
	}
	if nm := send(t, a, "GET", path, u.Token, nil, map[string]string{"If-None-Match": newTag}); nm.Status != 304 {
		t.Fatalf("GET on api-1 with api-2's new tag in If-None-Match: %d %s", nm.Status, nm.Body)
	}
	var tk struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(send(t, a, "GET", path, u.Token, nil, nil).Body, &tk); err != nil || tk.Title != "changed on api-2" {
		t.Fatalf("title %q (%v)", tk.Title, err)
	}
}

// replicatedRateLimitCase: the budget is per replica (docs/operations.md):
// a principal that has spent it on api-1 gets 429 with Retry-After there,
// while api-2 still serves it; through the proxy, the answers from api-1
// are 429 and those from api-2 are 200.
func replicatedRateLimitCase(t *testing.T, r *replicated) {
	s := r.on(t, r.URL)
	u := s.register("limited")
	a, b := r.APIs[0].URL, r.APIs[1].URL
	var limited hresp
	const workers = 8
	var mu sync.Mutex
	var wg sync.WaitGroup
	sent := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if limited.Status == 429 || sent >= 3*replicatedRateLimit {
					mu.Unlock()
					return
				}
				sent++
				mu.Unlock()
				res := send(t, a, "GET", "/auth/me", u.Token, nil, nil)
				mu.Lock()
				if res.Status == 429 {
					limited = res
				} else if res.Status != 200 {
					t.Errorf("GET /auth/me on api-1: %d %s", res.Status, res.Body)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if limited.Status != 429 {
		t.Fatalf("no 429 from api-1 after %d requests (budget %d a minute)", sent, replicatedRateLimit)
	}
	if sent < replicatedRateLimit {
		t.Fatalf("api-1 refused after %d requests, below its budget of %d", sent, replicatedRateLimit)
	}
	if limited.Header.Get("Retry-After") == "" || !strings.Contains(string(limited.Body), `"code"`) {
		t.Fatalf("429 without Retry-After or the envelope: %v %s", limited.Header, limited.Body)
	}
	if res := send(t, b, "GET", "/auth/me", u.Token, nil, nil); res.Status != 200 {
		t.Fatalf("api-2 refused a principal that spent api-1's budget: %d %s", res.Status, res.Body)
	}
	// Through the proxy each replica spends its own bucket, which its
	// RateLimit header tells: api-1's nearly empty (it refills at the
	// budget's pace meanwhile), api-2's nearly full.
	seen := map[string]bool{}
	for i := 0; i < 6; i++ {
		res := send(t, r.URL, "GET", "/auth/me", u.Token, nil, nil)
		name := res.Header.Get(stackrun.HeaderBackend)
		seen[name] = true
		var left, reset int
		if _, err := fmt.Sscanf(res.Header.Get("RateLimit"), `"default";r=%d;t=%d`, &left, &reset); err != nil {
			t.Fatalf("RateLimit %q: %v", res.Header.Get("RateLimit"), err)
		}
		switch {
		case name == "api-1" && (res.Status == 429 || res.Status == 200 && left < replicatedRateLimit/10):
		case name == "api-2" && res.Status == 200 && left > replicatedRateLimit/2:
		default:
			t.Fatalf("through the proxy, %s answered %d with RateLimit %q", name, res.Status, res.Header.Get("RateLimit"))
		}
	}
	if !seen["api-1"] || !seen["api-2"] {
		t.Fatalf("the proxy used %v", seen)
	}
}

// replicatedFanOut: 100 tickets created through the proxy (so on both API
// replicas), two webhooks, one refusing each event's first attempt; both
// workers relay and retry. Every (event, webhook) pair arrives under its
// one delivery id, with one first attempt in the delivery log and a 2xx.
func replicatedFanOut(t *testing.T, r *replicated) {
	s := r.on(t, r.URL)
	u := s.register("fanout")
	steady := newReceiver(t, ok)
	var mu sync.Mutex
	seen := map[uuid.UUID]bool{}
	var refusing *receiver
	refusing = newReceiver(t, func(n int) int {
		id := refusing.got()[n-1].Event.ID
		mu.Lock()
		defer mu.Unlock()
		if !seen[id] {
			seen[id] = true
			return 500
		}
		return 200
	})
	hooks := []uuid.UUID{s.createWebhook(u, steady, domain.EventTicketCreated), s.createWebhook(u, refusing, domain.EventTicketCreated)}
	project := s.createProject(r.db, u, "FAN")
	const events = 100
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < events; i += 4 {
				if res := send(t, r.URL, "POST", "/projects/"+project.String()+"/tickets", u.Token,
					map[string]any{"title": fmt.Sprintf("fan %d", i)}, nil); res.Status != 201 {
					t.Errorf("create: %d %s", res.Status, res.Body)
				}
			}
		}()
	}
	wg.Wait()
	waitFor(t, 60*time.Second, "a 2xx in the delivery log for every pair", func() bool {
		return scalar(t, r.db, `SELECT count(DISTINCT (event_id, webhook_id)) FROM webhook_deliveries
			WHERE org_id = $1 AND status_code BETWEEN 200 AND 299`, u.OrgID) == 2*events
	})
	for i, rcv := range []*receiver{steady, refusing} {
		posts := map[uuid.UUID]int{}
		for _, h := range rcv.got() {
			if h.SigErr != nil {
				t.Errorf("signature: %v", h.SigErr)
			}
			if got, want := h.Header.Get(webhook.HeaderDelivery), webhook.DeliveryKey(h.Event.ID, hooks[i]).String(); got != want {
				t.Fatalf("event %s at webhook %d under delivery id %s, want %s", h.Event.ID, i, got, want)
			}
			posts[h.Event.ID]++
		}
		if len(posts) != events {
			t.Fatalf("webhook %d received %d events, want %d", i, len(posts), events)
		}
	}
	if n := scalar(t, r.db, `SELECT count(*) FROM webhook_deliveries WHERE org_id = $1 AND attempt = 1 AND redelivery = 0`,
		u.OrgID); n != 2*events {
		t.Errorf("%d first attempts recorded, want %d", n, 2*events)
	}
	// The refusing receiver's pairs were delivered by the workflow's retries
	// (an attempt lost to an activity timeout is attempted again).
	if n := scalar(t, r.db, `SELECT count(DISTINCT event_id) FROM webhook_deliveries
		WHERE org_id = $1 AND webhook_id = $2 AND attempt >= 2 AND status_code = 200`, u.OrgID, hooks[1]); n != events {
		t.Errorf("%d events delivered by a retry after the refused first attempt, want %d", n, events)
	}
	for _, w := range r.Workers {
		t.Logf("%s: %s", w.Name, metricLines(t, w.URL, "webhook_attempts_total"))
	}
}

// metricLines is the worker's /metrics lines of one metric (for the log).
func metricLines(t *testing.T, base, name string) string {
	res, err := http.Get(base + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, name+"{") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}

// killRunner waits until an activity of the workflow runs on a worker,
// then kills that worker with SIGKILL and returns it. The SDK's default
// identity, which the server records per pending activity, starts with the
// worker's pid.
func killRunner(t *testing.T, r *replicated, workflowID string) *stackrun.Proc {
	t.Helper()
	c := r.temporal.Client(t)
	var victim *stackrun.Proc
	waitFor(t, 60*time.Second, "an activity of "+workflowID+" running on a worker", func() bool {
		d, err := c.DescribeWorkflowExecution(context.Background(), workflowID, "")
		if err != nil {
			return false
		}
		for _, a := range d.PendingActivities {
			pid, _, _ := strings.Cut(a.GetLastWorkerIdentity(), "@")
			for _, w := range r.Workers {
				if strconv.Itoa(w.PID()) == pid && a.GetState() == enums.PENDING_ACTIVITY_STATE_STARTED {
					victim = w
					return true
				}
			}
		}
		return false
	})
	t.Logf("killing %s (pid %d), which runs %s", victim.Name, victim.PID(), workflowID)
	victim.Kill()
	t.Cleanup(func() { // the next case may want it back
		if !victim.Running() {
			_ = victim.Start(context.Background())
		}
	})
	return victim
}

// replicatedImport: an import whose worker is killed mid-run is finished
// by the other worker (its activity times out on its heartbeat and is
// retried there), with exact counts; the killed worker then starts again.
func replicatedImport(t *testing.T, r *replicated) {
	s := r.on(t, r.URL)
	u := s.register("importer")
	seeded, doc, target := importFixture(t, s, r.db, u, 4)
	r.kills.Lock()
	defer r.kills.Unlock()
	res := s.importRaw("/import?org_id="+target.String(), u.Token, doc)
	if res.Status != 202 {
		t.Fatalf("POST /import: %d %s (want 202: the slowed import takes longer than the wait)", res.Status, res.Body)
	}
	id := uuid.MustParse(res.m(t)["import_id"].(string))
	tickets := func() int { return scalar(t, r.db, `SELECT count(*) FROM tickets WHERE org_id = $1`, target) }
	waitFor(t, 60*time.Second, "the first batches", func() bool { return tickets() >= 40 })
	victim := killRunner(t, r, "import:"+id.String())
	if mid := tickets(); mid >= seeded.Tickets {
		t.Fatalf("the import finished before the kill (%d tickets)", mid)
	}
	var st map[string]any
	waitFor(t, 120*time.Second, "the import to complete on the other worker", func() bool {
		st = s.must(200, "GET", "/imports/"+id.String(), u.Token, nil).m(t)
		return st["status"] == "completed" || st["status"] == "failed"
	})
	checkImport(t, s, r.db, u, id.String(), st, seeded, doc, target)
	if err := victim.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// replicatedCascade: a purge whose worker is killed is finished by the
// other worker; nothing of the project is left, nothing else touched.
func replicatedCascade(t *testing.T, r *replicated) {
	s := r.on(t, r.URL)
	u := s.register("purger")
	doomed, sibling, check := cascadeFixture(t, s, r.db, u)
	total := projectRows(t, r.db, doomed)["comments"]
	r.kills.Lock()
	defer r.kills.Unlock()
	s.must(204, "DELETE", "/projects/"+doomed.String()+"?cascade=true", u.Token, nil)
	victim := killRunner(t, r, "cascade:project:"+doomed.String())
	mid := projectRows(t, r.db, doomed)
	if mid["projects"] == 0 {
		t.Fatalf("the purge finished before the kill: %v", mid)
	}
	t.Logf("comments left at the kill: %d of %d", mid["comments"], total)
	waitFor(t, 120*time.Second, "the purge to complete on the other worker", func() bool {
		for _, n := range projectRows(t, r.db, doomed) {
			if n != 0 {
				return false
			}
		}
		return true
	})
	check()
	s.must(200, "GET", "/projects/"+sibling.String(), u.Token, nil)
	if err := victim.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
}
