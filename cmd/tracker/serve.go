package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
	deliveryapi "tracker/api/delivery"
	"tracker/domain/delivery"

	"golang.org/x/sync/errgroup"

	"tracker/api"
	"tracker/api/accounts"
	"tracker/api/attachments"
	capexapi "tracker/api/capex"
	chatapi "tracker/api/chat"
	codehostapi "tracker/api/codehost"
	"tracker/api/comments"
	customfieldapi "tracker/api/customfield"
	"tracker/api/exchange"
	feedapi "tracker/api/feed"
	"tracker/api/labels"
	laborrateapi "tracker/api/laborrate"
	"tracker/api/notifications"
	"tracker/api/orgs"
	"tracker/api/projects"
	scimapi "tracker/api/scim"
	"tracker/api/sprints"
	"tracker/api/sso"
	statusflowapi "tracker/api/statusflow"
	"tracker/api/tags"
	"tracker/api/teams"
	"tracker/api/tickets"
	timeentryapi "tracker/api/timeentry"
	"tracker/api/views"
	"tracker/api/webhooks"
	"tracker/domain"
	"tracker/domain/account"
	"tracker/domain/attachment"
	"tracker/domain/capex"
	"tracker/domain/chat"
	"tracker/domain/codehost"
	"tracker/domain/comment"
	"tracker/domain/customfield"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/importer"
	"tracker/domain/feed"
	"tracker/domain/idempotency"
	"tracker/domain/label"
	"tracker/domain/laborrate"
	"tracker/domain/notification"
	"tracker/domain/org"
	"tracker/domain/project"
	scimdomain "tracker/domain/scim"
	"tracker/domain/sprint"
	ssodomain "tracker/domain/sso"
	"tracker/domain/statusflow"
	"tracker/domain/tag"
	"tracker/domain/team"
	"tracker/domain/ticket"
	"tracker/domain/timeentry"
	"tracker/domain/view"
	"tracker/domain/webhook"
	"tracker/internal/safehttp"
	"tracker/internal/secretbox"
	"tracker/internal/tracing"
	"tracker/schema"
	"tracker/store"
	"tracker/store/objectstore"
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
	DB          *store.DB
	Accounts    *account.Service
	Orgs        *org.Service
	Projects    *project.Service
	Statusflows *statusflow.Service
	Tags        *tag.Service
	Tickets     *ticket.Service
	Views       *view.Service
	Fields      *customfield.Service
	Webhooks    *webhook.Service
	Comments    *comment.Service
	// Notifications are watchers, the inbox and settings; Hub wakes the
	// live streams of this process.
	Notifications *notification.Service
	Hub           *notification.Hub
	Labels        *label.Service
	Sprints       *sprint.Service
	Entries       *timeentry.Service
	Rates         *laborrate.Service
	Capex         *capex.Service
	Export        *export.Service
	Imports       *importer.Service
	// Attachments keep their bytes in Objects; Storage serves the local
	// store's presigned URLs (nil with S3).
	Attachments *attachment.Service
	Objects     objectstore.Store
	Storage     http.Handler
	Teams       *team.Service
	SSO         *ssodomain.Service
	SCIM        *scimdomain.Service
	Codehost    *codehost.Service
	Chat        *chat.Service
	// Delivery serves the unsubscribe link of notification emails.
	Delivery *delivery.Service
	// Idempotency keeps the responses of POSTs made with an Idempotency-Key.
	Idempotency *idempotency.Service
}

// deliveryService builds notification delivery; its unsubscribe links are
// signed with a key derived from SERVICE_JWT_SECRET, which every replica
// shares.
func deliveryService(cfg Config, db *store.DB, clock domain.Clock) *delivery.Service {
	return delivery.New(db, clock, cfg.PublicURL, []byte(cfg.JWTSecret))
}

// secretsBox seals stored third-party secrets under SERVICE_SECRETS_KEY.
func secretsBox(cfg Config) *secretbox.Box {
	key := cfg.SecretsKey
	if key == nil { // tests build a Config by hand
		key = secretbox.RandomKey()
	}
	box, err := secretbox.New(key)
	if err != nil {
		panic(err) // loadConfig checked the key's length
	}
	return box
}

// chatConfig is the chat integration's configuration.
func chatConfig(cfg Config, box *secretbox.Box, tickets *ticket.Service) chat.Config {
	return chat.Config{Tenancy: cfg.ChatTenancy, DefaultChannel: cfg.ChatDefaultChannel, SigningSecret: cfg.ChatSigningSecret, BotToken: cfg.ChatBotToken,
		APIURL: cfg.ChatAPIURL, PublicURL: cfg.PublicURL, Box: box, Tickets: tickets,
		ClientID: cfg.ChatClientID, ClientSecret: cfg.ChatClientSecret}
}

func newServices(cfg Config, db *store.DB, clock domain.Clock) services {
	box := secretsBox(cfg)
	tickets := ticket.New(db, clock)
	objects, storage := openObjects(cfg)
	s := services{
		Attachments: attachmentService(cfg, db, objects, clock),
		Objects:     objects, Storage: storage,
		DB: db,
		Accounts: account.New(db, clock, account.Tokens{Secret: []byte(cfg.JWTSecret), AccessTTL: time.Hour},
			cfg.Registration, time.Minute),
		Orgs:          org.New(db, clock, cfg.PublicURL),
		Projects:      project.New(db, clock),
		Statusflows:   statusflow.New(db, clock),
		Tags:          tag.New(db, clock),
		Tickets:       tickets,
		Views:         view.New(db, clock),
		Fields:        customfield.New(db, clock),
		Webhooks:      webhook.New(db, clock),
		Comments:      comment.New(db, clock),
		Notifications: notification.New(db, clock),
		Hub:           notification.NewHub(db, clock, slog.Default()),
		Labels:        label.New(db, clock),
		Sprints:       sprint.NewService(db, clock),
		Entries:       timeentry.New(db, clock),
		Rates:         laborrate.New(db, clock),
		Capex:         capex.New(db, clock),
		Export:        export.New(db, clock),
		Imports:       importer.New(db, clock, objects),
		Teams:         team.New(db, clock),
		Codehost:      codehost.New(db, tickets, cfg.CodehostSecret, box, clock, cfg.PublicURL),
		Chat:          chat.New(db, clock, chatConfig(cfg, box, tickets)),
		SCIM:          scimdomain.New(db, clock, cfg.PublicURL),
		Idempotency:   idempotency.New(db, clock),
		Delivery:      deliveryService(cfg, db, clock),
	}
	// The identity provider client: the webhook client's SSRF guard, so an
	// issuer on a private address is refused unless SERVICE_WEBHOOK_ALLOW_PRIVATE.
	s.SSO = ssodomain.New(db, box, domain.SystemClock{}, s.Accounts, safehttp.NewClient(cfg.WebhookAllowPrivate, webhook.AttemptTimeout),
		ssodomain.DNSResolver(cfg.DNSResolver), cfg.PublicURL, cfg.WebhookAllowPrivate)
	return s
}

// modules lists every feature's routes.
func modules(cfg Config, s services, log *slog.Logger) []api.Module {
	return []api.Module{
		accounts.New(s.Accounts, api.LoginLimits{PerIP: cfg.LoginPerIP, PerEmail: cfg.LoginPerEmail}),
		orgs.New(s.Orgs),
		projects.New(s.Projects),
		statusflowapi.New(s.Statusflows),
		tags.New(s.Tags),
		tickets.New(s.Tickets, s.Views.Search),
		views.New(s.Views),
		customfieldapi.New(s.Fields),
		webhooks.New(s.Webhooks),
		comments.New(s.Comments),
		notifications.New(s.Notifications, s.Hub, streamOptions(cfg)),
		feedapi.New(feed.New(s.DB), s.Hub, streamOptions(cfg)),
		labels.New(s.Labels),
		sprints.New(s.Sprints),
		timeentryapi.New(s.Entries),
		laborrateapi.New(s.Rates),
		capexapi.New(s.Capex),
		exchange.New(s.Export, s.Imports, log, cfg.Exchange),
		attachments.New(s.Attachments, s.Storage),
		teams.New(s.Teams),
		sso.New(s.SSO),
		scimapi.New(s.SCIM),
		codehostapi.New(s.Codehost),
		chatapi.New(s.Chat),
		deliveryapi.New(s.Delivery),
	}
}

// serve runs the API (and, for dev, the worker in the same process) until
// ctx ends, then shuts down gracefully.
func serve(ctx context.Context, cfg Config, log *slog.Logger, tr *tracing.Tracing, withWorker bool) error {
	db, err := openDB(ctx, cfg.DatabaseURL, cfg.DBStatementTimeout, tr)
	if err != nil {
		return err
	}
	defer db.Close()
	metrics := api.NewMetrics()
	metrics.Registry.MustRegister(store.NewPoolCollector(db))
	s := newServices(cfg, db, domain.SystemClock{})
	s.Hub = notification.NewHub(db, domain.SystemClock{}, log)
	defer s.Hub.Close()
	ensureBucket(ctx, cfg, log, s.Objects)
	if cfg.CodehostSecret == "" {
		log.Info("code-host webhook: SERVICE_CODEHOST_WEBHOOK_SECRET is not set; the service-wide URL refuses every delivery (per-org connections still work)")
	}
	logChatTenancy(log, cfg)
	app := api.New(api.Deps{Log: log, Metrics: metrics, Auth: s.Accounts, Health: domain.System{DB: db},
		Version: version, Profile: cfg.Profile, TrustedProxies: cfg.TrustedProxies,
		RateLimit: api.RateLimit{PerMinute: cfg.RateLimit}, Idempotency: s.Idempotency, Tracing: tr}, modules(cfg, s, log)...)

	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		log.Info("api listening", "addr", cfg.Addr, "tls", cfg.TLSCert != "")
		if err := api.Listen(app, cfg.Addr, cfg.TLSCert, cfg.TLSKey); err != nil {
			return fmt.Errorf("listen %s: %w", cfg.Addr, err)
		}
		return nil
	})
	g.Go(func() error {
		<-ctx.Done()
		return app.ShutdownWithTimeout(10 * time.Second)
	})
	g.Go(func() error { s.Accounts.WatchStanding(ctx, log); return nil })
	if cfg.PprofAddr != "" {
		g.Go(func() error { return servePprof(ctx, cfg.PprofAddr, log) })
	}
	if withWorker {
		// The worker's own pool: its jobs take the worker's statement
		// timeout, not the requests'.
		wdb, err := openDB(ctx, cfg.DatabaseURL, cfg.WorkerDBStatementTimeout, tr)
		if err != nil {
			return err
		}
		defer wdb.Close()
		g.Go(func() error { return runWorker(ctx, cfg, log, wdb, metrics, tr) })
	}
	return g.Wait()
}

// servePprof serves net/http/pprof's handlers on addr until ctx ends.
func servePprof(ctx context.Context, addr string, log *slog.Logger) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	log.Info("pprof listening", "addr", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("pprof %s: %w", addr, err)
	}
	return nil
}

func work(ctx context.Context, cfg Config, log *slog.Logger, tr *tracing.Tracing) error {
	db, err := openDB(ctx, cfg.DatabaseURL, cfg.WorkerDBStatementTimeout, tr)
	if err != nil {
		return err
	}
	defer db.Close()
	return runWorker(ctx, cfg, log, db, api.NewMetrics(), tr)
}

// openDB opens a pool whose statements the server cancels after
// statementTimeout (0: the database's setting).
func openDB(ctx context.Context, url string, statementTimeout time.Duration, tr *tracing.Tracing) (*store.DB, error) {
	return store.Open(ctx, url, store.WithTracer(tr.PgxTracer()), store.WithStatementTimeout(statementTimeout))
}

// logChatTenancy says at start who chat commands and events act for.
func logChatTenancy(log *slog.Logger, cfg Config) {
	if cfg.ChatClientID == "" {
		log.Info("chat install: SERVICE_CHAT_CLIENT_ID is not set; workspaces cannot be connected (installs answer 503)")
	}
	if cfg.ChatTenancy == chat.TenancyConnected {
		log.Info("chat tenancy: connected; commands and events act only for workspaces connected to an organization (SERVICE_CHAT_TENANCY)")
		return
	}
	msg := "chat tenancy: installation; a workspace connected to no organization acts in the organizations that accept it (SERVICE_CHAT_TENANCY)"
	if cfg.Profile == "production" {
		log.Warn(msg + "; a multi-tenant service should run with connected")
		return
	}
	log.Info(msg)
}

// streamOptions are the live streams' options: the config's, else the
// defaults.
func streamOptions(cfg Config) api.StreamOptions {
	if cfg.NotificationStream.Heartbeat == 0 {
		return api.DefaultStreamOptions
	}
	return cfg.NotificationStream
}
