package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	chatact "tracker/activities/chat"
	deliveryact "tracker/activities/delivery"
	"tracker/api"
	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/chat"
	"tracker/domain/idempotency"
	"tracker/domain/notification"
	"tracker/domain/ticket"
	"tracker/domain/webhook"
	"tracker/internal/tracing"
	"tracker/store"
	"tracker/worker"
	"tracker/worker/jobkind"
	capexwf "tracker/workflows/capex"
	cascadewf "tracker/workflows/cascade"
	chatwf "tracker/workflows/chat"
	deliverywf "tracker/workflows/delivery"
	exchangewf "tracker/workflows/exchange"
	webhookwf "tracker/workflows/webhook"
)

// registrations are the features' durable work; each adds itself with one
// line. The worker knows none of them: a new feature adds its line here.
func registrations(cfg Config, log *slog.Logger, db *store.DB, metrics prometheus.Registerer, clock domain.Clock,
	knobs workerKnobs, tr *tracing.Tracing) []jobkind.Registration {
	hooks := webhookwf.Deps{DB: db, AllowPrivate: cfg.WebhookAllowPrivate, Metrics: metrics, Tracing: tr}
	if knobs.RetryScale > 0 {
		hooks.Schedule = webhook.ScaledSchedule(knobs.RetryScale)
	}
	cascade, imports := knobs.Cascade, knobs.Import
	cascade.DB = db
	imports.DB, imports.Clock = db, clock
	imports.Files, _ = openObjects(cfg)
	return []jobkind.Registration{
		webhookwf.Register(hooks),
		cascadewf.Register(cascade),
		exchangewf.Register(imports),
		capexwf.Register(capexwf.Deps{Exports: capex.New(db, clock)}),
		attachmentRegistration(cfg, db, clock),
		chatRegistration(cfg, db, clock),
		deliveryRegistration(cfg, log, db, clock, knobs.DigestMinute),
	}
}

// deliveryRegistration is the delivery of personal notifications: email
// digests (off without SERVICE_SMTP_URL, said once here), chat direct
// messages and the due-soon sweep. digestMinute is the test knob that
// shrinks a digest minute (0: a minute).
func deliveryRegistration(cfg Config, log *slog.Logger, db *store.DB, clock domain.Clock, digestMinute time.Duration) jobkind.Registration {
	d := deliverywf.Deps{Delivery: deliveryService(cfg, db, clock), Notifications: notification.New(db, clock),
		DigestMinute: digestMinute}
	if cfg.SMTPURL == "" {
		log.Info("notification email: SERVICE_SMTP_URL is not set; email is off (the inbox, the stream and chat still deliver)")
	} else if m, err := deliveryact.NewSMTP(cfg.SMTPURL, cfg.SMTPFrom); err != nil {
		log.Error("notification email: the SMTP configuration does not parse; email is off", "error", err)
	} else {
		d.Mailer = m
		log.Info("notification email: on", "smtp", MaskURL(cfg.SMTPURL), "from", cfg.SMTPFrom)
	}
	return deliverywf.Register(d)
}

// chatRegistration is the chat feature's durable work: notifications,
// thread replies written as comments, and created tickets' follow-ups.
func chatRegistration(cfg Config, db *store.DB, clock domain.Clock) jobkind.Registration {
	svc := chat.New(db, clock, chatConfig(cfg, secretsBox(cfg), ticket.New(db, clock)))
	return chatwf.Register(chatwf.Deps{DB: db, Clock: clock, Chat: svc,
		Slack: chatact.NewSlackClient(cfg.ChatBotToken, cfg.ChatAPIURL)})
}

// runWorker runs the Temporal worker and the outbox relay until ctx ends.
// Temporal being unreachable is never fatal: the worker keeps retrying in
// the background, so `tracker dev` serves the API meanwhile.
func runWorker(ctx context.Context, cfg Config, log *slog.Logger, db *store.DB, metrics *api.Metrics, tr *tracing.Tracing) error {
	knobs, err := loadWorkerKnobs()
	if err != nil {
		return err
	}
	if knobs.MetricsAddr != "" {
		go serveWorkerMetrics(ctx, log, knobs.MetricsAddr, metrics)
	}
	d := worker.Deps{
		Log: log, DB: db, Metrics: metrics.Registry, Tracing: tr,
		Address: cfg.TemporalAddress, Namespace: cfg.TemporalNamespace, TaskQueue: cfg.TaskQueue,
		Outbox:        worker.OutboxConfig{MaxAttempts: knobs.OutboxMaxAttempts, Concurrency: knobs.OutboxConcurrency},
		PollInterval:  2 * time.Second,
		Registrations: registrations(cfg, log, db, metrics.Registry, domain.SystemClock{}, knobs, tr),
	}
	go pruneIdempotencyKeys(ctx, log, idempotency.New(db, domain.SystemClock{}))
	return worker.Run(ctx, d)
}

// pruneIdempotencyKeys deletes expired Idempotency-Key responses hourly,
// beside the relay's pruning of dispatched outbox rows (replicas pruning at
// once only split the work).
func pruneIdempotencyKeys(ctx context.Context, log *slog.Logger, s *idempotency.Service) {
	for {
		if n, err := s.Prune(ctx); err != nil && ctx.Err() == nil {
			log.Warn("pruning expired idempotency keys failed", "error", err)
		} else if n > 0 {
			log.Info("pruned expired idempotency keys", "rows", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Hour):
		}
	}
}

// workerKnobs are worker-only settings beyond Config: the metrics listener
// of a standalone worker, and test-only knobs that shrink the retry schedule
// and slow purges so end-to-end tests can run them and stop a worker
// mid-way. None is needed in production.
type workerKnobs struct {
	MetricsAddr string  // SERVICE_WORKER_METRICS_ADDR: /metrics and /health of `tracker worker` (unset: none)
	RetryScale  float64 // TRACKER_TEST_WEBHOOK_RETRY_SCALE: multiplies the retry offsets
	// Cascade: TRACKER_TEST_CASCADE_BATCH (rows per purge batch),
	// TRACKER_TEST_CASCADE_PAUSE (sleep between purge batches),
	// TRACKER_TEST_CASCADE_BUDGET (how long one purge call keeps deleting;
	// tiny: a call per batch, so a purge continues as new sooner) and
	// TRACKER_TEST_CASCADE_CALLS (purge calls per run before continue-as-new).
	// Only the tuning is set here; registrations adds the database.
	Cascade cascadewf.Deps

	OutboxMaxAttempts int // SERVICE_OUTBOX_MAX_ATTEMPTS: failed dispatches that park an outbox row (default 20)
	OutboxConcurrency int // SERVICE_OUTBOX_CONCURRENCY: outbox rows the relay dispatches at once (default 128)
	// Import: TRACKER_TEST_IMPORT_BATCH (tickets per batch) and
	// TRACKER_TEST_IMPORT_PAUSE (sleep between batches). Only the tuning
	// is set here; registrations adds the database, the clock and the
	// object store.
	Import exchangewf.Deps
	// DigestMinute: TRACKER_TEST_DIGEST_MINUTE, how long one minute of a
	// user's digest_minutes lasts in the email digests this worker starts
	// (e.g. 1s: a 10-minute digest sends after 10 s).
	DigestMinute time.Duration
}

func loadWorkerKnobs() (workerKnobs, error) {
	k := workerKnobs{MetricsAddr: os.Getenv("SERVICE_WORKER_METRICS_ADDR")}
	var err error
	if s := os.Getenv("TRACKER_TEST_WEBHOOK_RETRY_SCALE"); s != "" {
		if k.RetryScale, err = strconv.ParseFloat(s, 64); err != nil || k.RetryScale <= 0 {
			return k, errors.New("TRACKER_TEST_WEBHOOK_RETRY_SCALE: must be a positive number")
		}
	}
	if s := os.Getenv("TRACKER_TEST_CASCADE_BATCH"); s != "" {
		if k.Cascade.BatchSize, err = strconv.Atoi(s); err != nil || k.Cascade.BatchSize < 1 {
			return k, errors.New("TRACKER_TEST_CASCADE_BATCH: must be a positive integer")
		}
	}
	if s := os.Getenv("TRACKER_TEST_CASCADE_PAUSE"); s != "" {
		if k.Cascade.BatchPause, err = time.ParseDuration(s); err != nil {
			return k, errors.New("TRACKER_TEST_CASCADE_PAUSE: must be a duration such as 50ms")
		}
	}
	if s := os.Getenv("TRACKER_TEST_CASCADE_CALLS"); s != "" {
		if k.Cascade.MaxCalls, err = strconv.Atoi(s); err != nil || k.Cascade.MaxCalls < 1 {
			return k, errors.New("TRACKER_TEST_CASCADE_CALLS: must be a positive integer")
		}
	}
	if s := os.Getenv("TRACKER_TEST_CASCADE_BUDGET"); s != "" {
		if k.Cascade.Budget, err = time.ParseDuration(s); err != nil || k.Cascade.Budget <= 0 {
			return k, errors.New("TRACKER_TEST_CASCADE_BUDGET: must be a positive duration such as 1ms")
		}
	}
	for name, dst := range map[string]*int{"SERVICE_OUTBOX_MAX_ATTEMPTS": &k.OutboxMaxAttempts,
		"SERVICE_OUTBOX_CONCURRENCY": &k.OutboxConcurrency} {
		if s := os.Getenv(name); s != "" {
			if *dst, err = strconv.Atoi(s); err != nil || *dst < 1 {
				return k, errors.New(name + ": must be a positive integer")
			}
		}
	}
	if s := os.Getenv("TRACKER_TEST_IMPORT_BATCH"); s != "" {
		if k.Import.BatchSize, err = strconv.Atoi(s); err != nil || k.Import.BatchSize < 1 {
			return k, errors.New("TRACKER_TEST_IMPORT_BATCH: must be a positive integer")
		}
	}
	if s := os.Getenv("TRACKER_TEST_IMPORT_PAUSE"); s != "" {
		if k.Import.BatchPause, err = time.ParseDuration(s); err != nil {
			return k, errors.New("TRACKER_TEST_IMPORT_PAUSE: must be a duration such as 50ms")
		}
	}
	if s := os.Getenv("TRACKER_TEST_DIGEST_MINUTE"); s != "" {
		if k.DigestMinute, err = time.ParseDuration(s); err != nil || k.DigestMinute <= 0 {
			return k, errors.New("TRACKER_TEST_DIGEST_MINUTE: must be a positive duration such as 1s")
		}
	}
	return k, nil
}

// serveWorkerMetrics exposes the registry of a standalone worker.
func serveWorkerMetrics(ctx context.Context, log *slog.Logger, addr string, metrics *api.Metrics) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(metrics.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"status":"ok"}`)) })
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Info("worker metrics listening", "addr", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("worker metrics listener failed", "addr", addr, "error", err)
	}
}
