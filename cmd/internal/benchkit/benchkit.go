// Package benchkit holds what the self-contained load programs
// (cmd/benchreport, cmd/benchsearch) share: a dedicated database or one a
// -keep run left, the API served in process on a loopback port, a JSON
// client, and percentiles.
package benchkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"tracker/api"
	accountsapi "tracker/api/accounts"
	"tracker/domain"
	"tracker/domain/account"
	"tracker/store"
	"tracker/store/tempdb"
)

// Server is the in-process API and its database.
type Server struct {
	URL   string // the API's base URL
	DBURL string // the database the API serves
	stop  func()
}

// Serve opens reuse (a database a -keep run left) or, when it is empty,
// creates a fresh migrated database on TEST_DATABASE_URL's server, and
// serves the accounts module plus the modules mods builds on a loopback
// port. Stop drops the created database unless keep is set or it was
// reused; then it prints the database's URL instead.
func Serve(ctx context.Context, reuse string, keep bool, mods func(db *store.DB, clock domain.Clock) []api.Module) (*Server, error) {
	dbURL, drop := reuse, func() {}
	if dbURL == "" {
		var err error
		if dbURL, drop, err = tempdb.NewDatabase(ctx); err != nil {
			return nil, err
		}
	}
	if keep || reuse != "" {
		drop = func() { fmt.Printf("database kept: %s\n", dbURL) }
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		drop()
		return nil, err
	}
	clock := domain.SystemClock{}
	accounts := account.New(db, clock, account.Tokens{Secret: []byte("benchkit-secret-0123456789abcdef0123"), AccessTTL: 4 * time.Hour},
		account.RegistrationOpen, time.Minute)
	modules := append([]api.Module{accountsapi.New(accounts, api.LoginLimits{})}, mods(db, clock)...)
	app := api.New(api.Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: api.NewMetrics(),
		Auth: accounts, Health: domain.System{DB: db}, Version: "bench", Profile: "development"}, modules...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		drop()
		return nil, err
	}
	go func() { _ = app.Listener(api.LingerListener(ln)) }()
	s := &Server{URL: "http://" + ln.Addr().String(), DBURL: dbURL}
	s.stop = func() {
		_ = app.ShutdownWithTimeout(5 * time.Second)
		db.Close()
		drop()
	}
	fmt.Printf("dedicated database, in-process API at %s\n", s.URL)
	return s, nil
}

// Stop shuts the API down and drops (or keeps) the database.
func (s *Server) Stop() { s.stop() }

// HTTP is the client every request of a load program goes through.
var HTTP = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

// Call sends a JSON request and decodes a 2xx JSON answer into out (when
// not nil).
func Call(ctx context.Context, base, method, path, token string, body, out any) error {
	_, b, err := Send(ctx, base, method, path, token, body)
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// Send sends a JSON request (body marshalled when not nil, token as a
// bearer token when not empty) and returns the status and the body; an
// answer other than 2xx is an error naming both.
func Send(ctx context.Context, base, method, path, token string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		j, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, nil, err
	}
	if res.StatusCode/100 != 2 {
		return res.StatusCode, b, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return res.StatusCode, b, nil
}

// Pct is the p-th percentile (nearest rank) of sorted durations.
func Pct(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p+99)/100 - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// Ms is d in milliseconds, to the microsecond.
func Ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
