// Command tracker is the one binary of the service:
//
//	tracker api       serve the REST API
//	tracker worker    run the Temporal worker and the outbox relay
//	tracker migrate   apply the embedded migrations and exit
//	tracker dev       migrate, then api and worker in one process
//	tracker outbox    list parked outbox rows (dead) or offer one again (retry ID)
//	tracker version   print the version
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"tracker/internal/tracing"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "tracker:", err)
		os.Exit(1)
	}
}

const usage = "usage: tracker api|worker|migrate|dev|outbox|version"

func run(ctx context.Context, args []string) error {
	if len(args) == 0 || (len(args) != 1 && args[0] != "outbox") {
		return errors.New(usage)
	}
	if args[0] == "version" {
		fmt.Println(version)
		return nil
	}
	cfg, warnings, err := loadConfig()
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogLevel)
	for _, w := range warnings {
		log.Warn(w)
	}
	if args[0] == "outbox" {
		return outboxCommand(ctx, cfg.DatabaseURL, args[1:], os.Stdout)
	}
	log.Info("starting", "command", args[0], "version", version, "config", cfg)
	if args[0] == "migrate" {
		return migrate(ctx, cfg, log)
	}
	tr, err := tracing.Start(ctx, cfg.OTLPEndpoint, version)
	if err != nil {
		return err
	}
	if tr.Enabled() {
		log.Info("tracing on: spans go to the OTLP endpoint", "endpoint", MaskURL(cfg.OTLPEndpoint))
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := tr.Shutdown(sctx); err != nil {
				log.Warn("flushing traces failed", "error", err)
			}
		}()
	}
	switch args[0] {
	case "api":
		return serve(ctx, cfg, log, tr, false)
	case "worker":
		return work(ctx, cfg, log, tr)
	case "dev":
		if err := migrate(ctx, cfg, log); err != nil {
			return err
		}
		return serve(ctx, cfg, log, tr, true)
	}
	return errors.New(usage)
}
