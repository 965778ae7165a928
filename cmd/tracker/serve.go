package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"

	"tracker/api"
	"tracker/api/accounts"
	"tracker/api/orgs"
	"tracker/domain"
	"tracker/domain/account"
	"tracker/domain/org"
	"tracker/schema"
	"tracker/store"
)

func migrate(ctx context.Context, cfg Config, log *slog.Logger) error {
	v, err := schema.Migrate(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	log.Info("migrations applied", "version", v)
	return nil
}

// services are the domain use cases, built once from the config.
type services struct {
	DB       *store.DB
	Accounts *account.Service
	Orgs     *org.Service
}

func newServices(cfg Config, db *store.DB) services {
	return services{
		DB: db,
		Accounts: &account.Service{DB: db, Registration: cfg.Registration, KeyTouchInterval: time.Minute,
			Tokens: account.Tokens{Secret: []byte(cfg.JWTSecret), AccessTTL: time.Hour}},
		Orgs: &org.Service{DB: db, PublicURL: cfg.PublicURL},
	}
}

// modules lists every feature's routes.
func modules(cfg Config, s services) []api.Module {
	return []api.Module{
		accounts.Handlers{Accounts: s.Accounts, Limits: api.LoginLimits{PerIP: cfg.LoginPerIP, PerEmail: cfg.LoginPerEmail}},
		orgs.Handlers{Orgs: s.Orgs},
	}
}

// serve runs the API (and, for dev, the worker in the same process) until
// ctx ends, then shuts down gracefully.
func serve(ctx context.Context, cfg Config, log *slog.Logger, withWorker bool) error {
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	metrics := api.NewMetrics()
	metrics.Registry.MustRegister(store.NewPoolCollector(db))
	s := newServices(cfg, db)
	app := api.New(api.Deps{Log: log, Metrics: metrics, Auth: s.Accounts, Health: domain.System{DB: db},
		Version: version, Profile: cfg.Profile}, modules(cfg, s)...)

	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		log.Info("api listening", "addr", cfg.Addr, "tls", cfg.TLSCert != "")
		var err error
		if cfg.TLSCert != "" {
			err = app.ListenTLS(cfg.Addr, cfg.TLSCert, cfg.TLSKey)
		} else {
			err = app.Listen(cfg.Addr)
		}
		if err != nil {
			return fmt.Errorf("listen %s: %w", cfg.Addr, err)
		}
		return nil
	})
	g.Go(func() error {
		<-ctx.Done()
		return app.ShutdownWithTimeout(10 * time.Second)
	})
	if withWorker {
		g.Go(func() error { return runWorker(ctx, cfg, log, db, metrics) })
	}
	return g.Wait()
}

func work(ctx context.Context, cfg Config, log *slog.Logger) error {
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	return runWorker(ctx, cfg, log, db, api.NewMetrics())
}
