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
	"tracker/api/projects"
	"tracker/api/tickets"
	"tracker/domain"
	"tracker/domain/account"
	"tracker/domain/project"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/storetest"
)

// startSelf creates the dedicated database (or opens the reused one) and
// serves the API (accounts, projects, tickets) on a loopback port.
func startSelf(ctx context.Context, c *config) (func(), error) {
	dbURL, drop := c.Reuse, func() {}
	if dbURL == "" {
		var err error
		if dbURL, drop, err = storetest.NewDatabase(ctx); err != nil {
			return nil, err
		}
	}
	if c.Keep || c.Reuse != "" {
		drop = func() { fmt.Printf("database kept: %s\n", dbURL) }
	}
	db, err := store.Open(ctx, dbURL)
	if err != nil {
		drop()
		return nil, err
	}
	clock := domain.SystemClock{}
	accounts := account.New(db, clock, account.Tokens{Secret: []byte("benchsearch-secret-0123456789abcdef"), AccessTTL: 4 * time.Hour},
		account.RegistrationOpen, time.Minute)
	app := api.New(api.Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: api.NewMetrics(),
		Auth: accounts, Health: domain.System{DB: db}, Version: "bench", Profile: "development"},
		accountsapi.New(accounts, api.LoginLimits{}), projects.New(project.New(db, clock)),
		tickets.New(ticket.New(db, clock), search.New(db, clock)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		drop()
		return nil, err
	}
	go func() { _ = app.Listener(ln) }()
	c.URL, c.DB = "http://"+ln.Addr().String(), dbURL
	fmt.Printf("dedicated database, in-process API at %s\n", c.URL)
	return func() {
		_ = app.ShutdownWithTimeout(5 * time.Second)
		db.Close()
		drop()
	}, nil
}
