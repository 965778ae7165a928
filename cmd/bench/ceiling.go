package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/ticket"
	"tracker/store"
)

// The ceiling is what the reads would cost with nothing but the query: a
// bare Fiber app (no middleware, no authentication) whose handlers run the
// API's one query for the same rows, as the benchmark's user, and write
// the same JSON. It runs as its own process (this program, with
// -serve-ceiling), as the API does, and the same loader measures both in
// the same run: the ratio API/ceiling is what the API's edge costs.

// ceilingOps are the operations the ceiling serves.
var ceilingOps = []string{"get", "list"}

// serveCeiling is the ceiling's process: it serves on addr until killed.
func serveCeiling(addr, dbURL, user string) error {
	ctx := context.Background()
	uid, err := uuid.Parse(user)
	if err != nil {
		return fmt.Errorf("user: %w", err)
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		return err
	}
	tickets := ticket.New(db, domain.SystemClock{})
	p := domain.Principal{UserID: uid, Scopes: []string{domain.ScopeAll}}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/api/v1/tickets/:id", func(c *fiber.Ctx) error {
		id, err := uuid.Parse(c.Params("id"))
		if err != nil {
			return c.SendStatus(fiber.StatusNotFound)
		}
		t, err := tickets.Get(c.UserContext(), p, id)
		if err != nil {
			return c.SendStatus(fiber.StatusInternalServerError)
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(t.AppendJSON(make([]byte, 0, 512)))
	})
	app.Get("/api/v1/projects/:id/tickets", func(c *fiber.Ctx) error {
		id, err := uuid.Parse(c.Params("id"))
		if err != nil {
			return c.SendStatus(fiber.StatusNotFound)
		}
		page, err := tickets.List(c.UserContext(), p, id, ticket.Filter{}, domain.Page{Limit: 20})
		if err != nil {
			return c.SendStatus(fiber.StatusInternalServerError)
		}
		b := make([]byte, 0, 64+len(page.Items)*480)
		b = append(b, `{"items":[`...)
		for i, t := range page.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = t.AppendJSON(b)
		}
		b = append(b, `],"next_cursor":`...)
		if page.Next == nil {
			b = append(b, "null"...)
		} else {
			b = strconv.AppendQuote(b, api.EncodeCursor(*page.Next))
		}
		b = append(b, `,"has_more":`...)
		b = strconv.AppendBool(b, page.Next != nil)
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(append(b, '}'))
	})
	fmt.Println("ceiling listening")
	return app.Listen(addr)
}

// startCeiling runs the ceiling's process on a free loopback port and
// returns its base URL and how to stop it.
func startCeiling(ctx context.Context, cfg config, w *world) (string, func(), error) {
	addr, err := freeLoopback()
	if err != nil {
		return "", nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-serve-ceiling", addr, "-db", cfg.DB, "-ceiling-user", w.userID.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "ceiling listening") {
				ready <- true
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			stop()
			return "", nil, fmt.Errorf("the ceiling's process exited")
		}
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, fmt.Errorf("the ceiling's process did not start")
	}
	base := "http://" + addr
	// Fiber may accept a moment after printing: wait until it answers.
	probe := newClient(base, 1)
	for i := 0; ; i++ {
		err := probe.call(ctx, "GET", "/api/v1/tickets/"+w.tickets[0].String(), "", nil, 200, nil)
		if err == nil {
			break
		}
		if i == 100 {
			stop()
			return "", nil, fmt.Errorf("the ceiling does not answer: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return base, stop, nil
}

// compareCeiling measures each read at each client count against the API
// and the ceiling alternately, rounds times, and prints the throughputs
// and their ratio (the median of the rounds').
func compareCeiling(ctx context.Context, cfg config, api *client, w *world) error {
	base, stop, err := startCeiling(ctx, cfg, w)
	if err != nil {
		return err
	}
	defer stop()
	ceiling := newClient(base, maxOf(cfg.Clients))
	fmt.Printf("\nceiling (bare Fiber + the one query, %s) against the API, %d round(s), load average %s\n", base, cfg.Rounds, loadAverage())
	fmt.Printf("| %-6s | %7s | %11s | %11s | %6s |\n", "read", "clients", "API ops/s", "ceiling", "ratio")
	fmt.Printf("|%s|%s|%s|%s|%s|\n", dashes(8), dashes(9), dashes(13), dashes(13), dashes(8))
	for _, n := range cfg.Clients {
		for _, op := range ceilingOps {
			var ratios, apis, ceils []float64
			for range cfg.Rounds {
				a := measure(ctx, api, w, op, n, cfg.Warmup, cfg.Duration)
				c := measure(ctx, ceiling, w, op, n, cfg.Warmup, cfg.Duration)
				if a.errors > 0 || c.errors > 0 {
					return fmt.Errorf("%s at %d clients: errors (API %d: %s; ceiling %d: %s)", op, n, a.errors, a.firstErr, c.errors, c.firstErr)
				}
				apis, ceils = append(apis, a.opsPerSec()), append(ceils, c.opsPerSec())
				ratios = append(ratios, a.opsPerSec()/c.opsPerSec())
			}
			fmt.Printf("| %-6s | %7d | %11.0f | %11.0f | %6.2f |\n", op, n, median(apis), median(ceils), median(ratios))
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func freeLoopback() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
