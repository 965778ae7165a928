package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/cmd/internal/benchkit"
	"tracker/internal/stackrun"
	"tracker/store/outboxdb"
)

// receiver is the webhook endpoint of every seeded org: it counts the
// distinct events delivered and their lag (arrival minus the event's time).
type receiver struct {
	url string
	srv *http.Server

	mu     sync.Mutex
	lag    []time.Duration
	events map[string]bool
	posts  int
}

func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/hooks", events: map[string]bool{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var ev struct {
			ID        string    `json:"id"`
			CreatedAt time.Time `json:"created_at"`
		}
		_ = json.Unmarshal(b, &ev)
		r.mu.Lock()
		r.posts++
		if !r.events[ev.ID] {
			r.events[ev.ID] = true
			r.lag = append(r.lag, time.Since(ev.CreatedAt))
		}
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) close() { _ = r.srv.Close() }

// swap hands over the interval's first-delivery lags, sorted.
func (r *receiver) swap() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.lag
	r.lag = nil
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l
}

func (r *receiver) counts() (events, posts int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events), r.posts
}

// sample is one interval's figures.
type sample struct {
	at      time.Duration
	kinds   map[string]*kindStats
	late    int64
	names   []string         // the stack's processes, in its order
	rss     map[string]int64 // bytes by process name
	conns   int
	outbox  outboxdb.Stats
	lag     []time.Duration
	dbErr   error
	rssNote string
}

func takeSample(ctx context.Context, conn *pgx.Conn, state string, at time.Duration, kinds map[string]*kindStats, late int64, lag []time.Duration) sample {
	s := sample{at: at, kinds: kinds, late: late, lag: lag, rss: map[string]int64{}}
	var st struct {
		Processes []struct {
			Name string `json:"name"`
			PID  int    `json:"pid"`
		} `json:"processes"`
	}
	if b, err := os.ReadFile(state); err != nil {
		s.rssNote = err.Error()
	} else if err := json.Unmarshal(b, &st); err != nil {
		s.rssNote = err.Error()
	}
	for _, p := range st.Processes {
		if n, err := stackrun.RSSOf(p.PID); err == nil {
			s.names = append(s.names, p.Name)
			s.rss[p.Name] = n
		}
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if s.dbErr = conn.QueryRow(qctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&s.conns); s.dbErr == nil {
		s.outbox, s.dbErr = outboxdb.ReadStats(qctx, conn)
	}
	return s
}

func (s sample) print() {
	var b strings.Builder
	fmt.Fprintf(&b, "[%8s] late ticks so far %d\n", s.at.Round(time.Second), s.late)
	fmt.Fprintf(&b, "  %-14s %7s %6s %9s %9s\n", "kind", "ok", "errors", "p50 ms", "p99 ms")
	for _, o := range ops {
		k := s.kinds[o.name]
		if k == nil {
			continue
		}
		p50, p99 := "-", "-"
		if len(k.lat) > 0 {
			p50, p99 = fmt.Sprintf("%.1f", benchkit.Ms(benchkit.Pct(k.lat, 50))), fmt.Sprintf("%.1f", benchkit.Ms(benchkit.Pct(k.lat, 99)))
		}
		fmt.Fprintf(&b, "  %-14s %7d %6d %9s %9s", o.name, k.ok, k.errors, p50, p99)
		if k.errors > 0 {
			fmt.Fprintf(&b, "   %v last: %.160s", k.codes, k.lastErr)
		}
		b.WriteByte('\n')
	}
	b.WriteString("  rss MiB:")
	for _, n := range s.names {
		fmt.Fprintf(&b, " %s %.1f", n, float64(s.rss[n])/(1<<20))
	}
	if s.rssNote != "" {
		b.WriteString(" (" + s.rssNote + ")")
	}
	b.WriteByte('\n')
	if s.dbErr != nil {
		fmt.Fprintf(&b, "  database: %v\n", s.dbErr)
	} else {
		fmt.Fprintf(&b, "  postgres connections %d; outbox pending %d, oldest %.1f s, parked %d\n",
			s.conns, s.outbox.Pending, s.outbox.OldestAge.Seconds(), s.outbox.Dead)
	}
	if len(s.lag) > 0 {
		fmt.Fprintf(&b, "  webhook deliveries %d, commit to delivery p50 %.0f ms, p99 %.0f ms\n",
			len(s.lag), benchkit.Ms(benchkit.Pct(s.lag, 50)), benchkit.Ms(benchkit.Pct(s.lag, 99)))
	}
	fmt.Print(b.String())
}

// series is one watched figure over the samples.
type series struct {
	name  string
	unit  string
	scale float64 // divides the raw value for printing
	frac  float64 // a rise above this share of the mean ...
	floor float64 // ... and above this (raw units) is growth
	t, v  []float64
}

// fit is the least-squares slope (per minute) of v over t (minutes).
func fit(t, v []float64) float64 {
	n := float64(len(t))
	var st, sv, stt, stv float64
	for i := range t {
		st += t[i]
		sv += v[i]
		stt += t[i] * t[i]
		stv += t[i] * v[i]
	}
	d := n*stt - st*st
	if d == 0 {
		return 0
	}
	return (n*stv - st*sv) / d
}

// grows tells whether the fitted line rises over the window by more than
// both the series's share of its mean and its floor; it returns the rise.
func (s series) grows() (bool, float64) {
	if len(s.t) < 3 {
		return false, 0
	}
	rise := fit(s.t, s.v) * (s.t[len(s.t)-1] - s.t[0])
	var mean float64
	for _, v := range s.v {
		mean += v
	}
	mean /= float64(len(s.v))
	return rise > s.frac*mean && rise > s.floor, rise
}

// verdict prints the totals and the growth check, and fails the run when a
// figure keeps growing, more than 1% of requests failed or were late, or
// an event written was never delivered.
func verdict(c config, samples []sample, st *stats, rcv *receiver) error {
	var watched []*series
	get := func(name, unit string, scale, frac, floor float64) *series {
		for _, s := range watched {
			if s.name == name {
				return s
			}
		}
		s := &series{name: name, unit: unit, scale: scale, frac: frac, floor: floor}
		watched = append(watched, s)
		return s
	}
	for _, s := range samples {
		if s.at < c.Settle {
			continue
		}
		m := s.at.Minutes()
		for _, n := range s.names {
			r := get("rss "+n, "MiB", 1<<20, 0.10, 16<<20)
			r.t, r.v = append(r.t, m), append(r.v, float64(s.rss[n]))
		}
		if s.dbErr == nil {
			for _, x := range []struct {
				s *series
				v float64
			}{
				{get("postgres connections", "", 1, 0.20, 5), float64(s.conns)},
				{get("outbox pending rows", "", 1, 0.50, 200), float64(s.outbox.Pending)},
				{get("outbox oldest pending", "s", 1, 0.50, 5), s.outbox.OldestAge.Seconds()},
			} {
				x.s.t, x.s.v = append(x.s.t, m), append(x.s.v, x.v)
			}
		}
	}
	var fails []string
	fmt.Printf("\nsoak: growth over the samples after %s (least-squares line; growth = a rise above a share of the level and a floor)\n", c.Settle)
	fmt.Printf("  %-26s %10s %10s %12s %s\n", "figure", "first", "last", "rise/hour", "verdict")
	for _, s := range watched {
		bad, rise := s.grows()
		verdictText := "flat"
		switch {
		case len(s.t) < 3:
			verdictText = "too few samples"
		case bad:
			verdictText = "GROWING"
			fails = append(fails, s.name+" keeps growing")
		}
		perHour := 0.0
		if span := s.t[len(s.t)-1] - s.t[0]; span > 0 {
			perHour = rise / span * 60
		}
		fmt.Printf("  %-26s %10.1f %10.1f %12.1f %s %s\n", s.name, s.v[0]/s.scale, s.v[len(s.v)-1]/s.scale, perHour/s.scale, s.unit, verdictText)
	}

	st.mu.Lock()
	var ok, errs, writes int
	fmt.Printf("\nsoak: totals\n")
	for _, o := range ops {
		k := st.total[o.name]
		if k == nil {
			continue
		}
		ok += k.ok
		errs += k.errors
		if strings.HasPrefix(o.name, "write:") {
			writes += k.ok
		}
		fmt.Printf("  %-14s %8d ok %6d errors %v\n", o.name, k.ok, k.errors, k.codes)
	}
	st.mu.Unlock()
	late := st.late.Load()
	fmt.Printf("  late ticks %d of %d\n", late, int64(ok+errs)+late)
	if errs*100 > ok+errs {
		fails = append(fails, fmt.Sprintf("%d of %d requests failed", errs, ok+errs))
	}
	if late*100 > int64(ok+errs)+late {
		fails = append(fails, fmt.Sprintf("%d ticks late: the stack did not keep the rate", late))
	}
	// Every write made one event; the seed made one per ticket, project
	// creations make none that the webhooks subscribe to.
	want := writes + c.Users*c.Tickets
	deadline := time.Now().Add(time.Minute)
	events, posts := rcv.counts()
	for events < want && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		events, posts = rcv.counts()
	}
	fmt.Printf("  webhook events delivered %d of %d written (%d posts)\n", events, want, posts)
	if events < want {
		fails = append(fails, fmt.Sprintf("%d events never delivered", want-events))
	}
	if len(fails) > 0 {
		return fmt.Errorf("%s", strings.Join(fails, "; "))
	}
	fmt.Println("soak: nothing grows without bound, nothing lost")
	return nil
}
