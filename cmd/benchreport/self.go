package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"tracker/api"
	accountsapi "tracker/api/accounts"
	"tracker/api/reports"
	"tracker/domain"
	"tracker/domain/account"
	"tracker/domain/capex"
	"tracker/store"
	"tracker/store/storetest"
)

// startSelf creates a temporary migrated database (or opens the one -reuse
// names) and serves the API (the account and report modules) on a loopback
// port, pointing c at both.
func startSelf(ctx context.Context, c *config) (func(), error) {
	dbURL, drop := c.Reuse, func() {}
	if dbURL == "" {
		var err error
		if dbURL, drop, err = storetest.NewDatabase(ctx); err != nil {
			return nil, err
		}
	}
	if c.Keep || c.Reuse != "" {
		drop = func() { fmt.Printf("kept the seeded database: %s\n", dbURL) }
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		drop()
		return nil, err
	}
	accounts := account.New(db, domain.SystemClock{}, account.Tokens{Secret: []byte("benchreport-secret-0123456789abcdef"), AccessTTL: time.Hour},
		account.RegistrationOpen, time.Minute)
	app := api.New(api.Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: api.NewMetrics(),
		Auth: accounts, Health: domain.System{DB: db}, Version: "bench", Profile: "development"},
		accountsapi.New(accounts, api.LoginLimits{}), reports.New(capex.New(db, domain.SystemClock{})))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		drop()
		return nil, err
	}
	go func() { _ = app.Listener(ln) }()
	c.URL = "http://" + ln.Addr().String()
	c.DB = dbURL
	fmt.Printf("self-contained: temporary database, in-process API at %s\n", c.URL)
	return func() {
		_ = app.ShutdownWithTimeout(5 * time.Second)
		db.Close()
		drop()
	}, nil
}
