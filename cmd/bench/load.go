package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

var allOps = []string{"get", "list", "create-spread", "create-one"}

func known(op string) bool { return slices.Contains(allOps, op) }

// client is a keep-alive HTTP client sized for the largest client count.
// It is fasthttp's: on a 2-core box the load generator shares the CPU with
// the API and PostgreSQL, and net/http's client cost about twice as much CPU
// per request, which the measurement would have charged to the service.
type client struct {
	base string
	http *fasthttp.Client
}

func newClient(base string, conns int) *client {
	return &client{base: base, http: &fasthttp.Client{MaxConnsPerHost: conns * 2, MaxIdleConnDuration: time.Minute,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}}
}

// call sends one request and decodes a JSON answer into out (when not nil);
// any status but want is an error.
func (c *client) call(ctx context.Context, method, path, token string, body any, want int, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(res)
	req.Header.SetMethod(method)
	req.SetRequestURI(c.base + path)
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req.Header.SetContentType("application/json")
		req.SetBodyRaw(b)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if err := c.http.Do(req, res); err != nil {
		return err
	}
	if res.StatusCode() != want {
		return fmt.Errorf("%s %s: status %d: %.200s", method, path, res.StatusCode(), res.Body())
	}
	if out != nil {
		return json.Unmarshal(res.Body(), out)
	}
	return nil
}

// request returns the request one client makes next for an operation.
func request(w *world, op string, r *rand.Rand) (method, path string, body any, want int) {
	switch op {
	case "get":
		return "GET", "/api/v1/tickets/" + w.tickets[r.IntN(len(w.tickets))].String(), nil, 200
	case "list":
		return "GET", "/api/v1/projects/" + w.projects[r.IntN(len(w.projects))].String() + "/tickets?limit=20", nil, 200
	case "create-spread":
		return "POST", "/api/v1/projects/" + w.projects[r.IntN(len(w.projects))].String() + "/tickets", newTicket, 201
	default: // create-one: every client in the first project, contending for its counter
		return "POST", "/api/v1/projects/" + w.projects[0].String() + "/tickets", newTicket, 201
	}
}

var newTicket = map[string]any{"title": "Benchmark ticket", "priority": "Medium"}

// result is one run: an operation at a client count.
type result struct {
	op        string
	clients   int
	elapsed   time.Duration
	latencies []time.Duration
	errors    int
	firstErr  string
}

func (r result) opsPerSec() float64 { return float64(len(r.latencies)) / r.elapsed.Seconds() }

func (r result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(float64(len(r.latencies))*p))]
}

// measure runs op with n clients: warmup unmeasured, then duration measured.
// Each client sends its next request as soon as the previous one answered.
func measure(ctx context.Context, c *client, w *world, op string, n int, warmup, duration time.Duration) result {
	var (
		mu  sync.Mutex
		res = result{op: op, clients: n}
		wg  sync.WaitGroup
	)
	measureFrom := time.Now().Add(warmup)
	end := measureFrom.Add(duration)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			var lat []time.Duration
			errs, first := 0, ""
			for ctx.Err() == nil {
				start := time.Now()
				if !start.Before(end) {
					break
				}
				method, path, body, want := request(w, op, r)
				err := c.call(ctx, method, path, w.token, body, want, nil)
				if start.Before(measureFrom) {
					continue
				}
				if err != nil {
					errs++
					if first == "" {
						first = err.Error()
					}
					continue
				}
				lat = append(lat, time.Since(start))
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			res.errors += errs
			if res.firstErr == "" {
				res.firstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	// requests started before the end may answer after it
	res.elapsed = time.Since(measureFrom)
	slices.Sort(res.latencies)
	return res
}
