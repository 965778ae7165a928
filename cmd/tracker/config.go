package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	deliveryact "tracker/activities/delivery"

	"tracker/api"
	"tracker/api/exchange"
	"tracker/domain/chat"
	"tracker/internal/secretbox"
	"tracker/internal/tracing"
)

// Config is read once from the environment.
type Config struct {
	Addr                string
	DatabaseURL         string
	TemporalAddress     string
	TemporalNamespace   string
	TaskQueue           string
	JWTSecret           string
	Registration        string
	Profile             string
	TLSCert, TLSKey     string
	PublicURL           string
	WebhookAllowPrivate bool
	CodehostSecret      string
	ChatSigningSecret   string
	ChatBotToken        string
	ChatDefaultChannel  string
	ChatAPIURL          string
	// ChatTenancy is SERVICE_CHAT_TENANCY: installation (a workspace
	// connected to no org acts in the orgs that accept it) or connected
	// (only connected workspaces act).
	ChatTenancy string
	// ChatClientID and ChatClientSecret are the chat app's OAuth
	// credentials (SERVICE_CHAT_CLIENT_ID, SERVICE_CHAT_CLIENT_SECRET): a
	// workspace is connected by installing the app with them.
	ChatClientID, ChatClientSecret string
	// SMTPURL is the mail server of notification emails
	// (SERVICE_SMTP_URL, smtp://user:pass@host:587 with STARTTLS, or
	// smtps://; empty: email is off) and SMTPFrom their sender
	// (SERVICE_SMTP_FROM, default tracker@ the public URL's host).
	SMTPURL, SMTPFrom string
	S3Endpoint        string
	S3Bucket          string
	S3AccessKey       string
	S3SecretKey       string
	S3Region          string
	Attachments       AttachmentConfig
	// NotificationStream tunes the live notification streams (zero:
	// api.DefaultStreamOptions; tests end streams early).
	NotificationStream api.StreamOptions
	// Exchange holds the export/import knobs (zero: os.TempDir and
	// exchange.DefaultImportLimit; tests set them here, not in the package).
	Exchange      exchange.Settings
	LoginPerIP    int
	LoginPerEmail int
	// RateLimit is the per-principal request budget a minute of /api/v1
	// (SERVICE_RATE_LIMIT; 0: off).
	RateLimit      int
	TrustedProxies []string
	// PprofAddr serves net/http/pprof's profiles (SERVICE_PPROF_ADDR;
	// empty: off). Never a public address: profiles reveal the program.
	PprofAddr string
	LogLevel  slog.Level
	// SecretsKey seals stored third-party secrets (SERVICE_SECRETS_KEY).
	SecretsKey []byte
	// DBStatementTimeout is the statement_timeout of the API's pool
	// (SERVICE_DB_STATEMENT_TIMEOUT, a Go duration, default
	// DefaultDBStatementTimeout; 0: the database's own setting): a statement
	// of a request that runs longer is cancelled and the request answers 503.
	DBStatementTimeout time.Duration
	// WorkerDBStatementTimeout is the worker pool's
	// (SERVICE_WORKER_DB_STATEMENT_TIMEOUT, default
	// DefaultWorkerDBStatementTimeout; 0: the database's own setting).
	WorkerDBStatementTimeout time.Duration
	// OTLPEndpoint is where traces go (SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT,
	// else OTEL_EXPORTER_OTLP_ENDPOINT; an OTLP/HTTP base URL such as
	// http://collector:4318). Empty: tracing off.
	OTLPEndpoint string
	// DNSResolver is the DNS server (host:port) that org domain
	// verifications ask (SERVICE_DNS_RESOLVER; empty: the system's).
	DNSResolver string
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) (int, error) {
	s := env(name, "")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s: not an integer: %q", name, s)
	}
	return n, nil
}

// envDuration reads a Go duration ("30s", "5m"; "0" is zero), never
// negative.
func envDuration(name string, def time.Duration) (time.Duration, error) {
	s := env(name, "")
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s: not a duration such as 30s or 5m (0: the database's setting): %q", name, s)
	}
	return d, nil
}

// DefaultDBStatementTimeout bounds one statement of a request: far above
// what any bounded request needs, far below a client's patience, so a
// statement that would hold a backend for minutes is cancelled instead.
const DefaultDBStatementTimeout = 30 * time.Second

// DefaultWorkerDBStatementTimeout bounds one statement of the worker's
// jobs, which work in batches: a statement past it is a runaway that
// Temporal then shows as the activity's error, not minutes of a backend.
const DefaultWorkerDBStatementTimeout = 5 * time.Minute

func loadConfig() (Config, []string, error) {
	var warnings []string
	c := Config{
		Addr:               env("SERVICE_ADDR", ":3000"),
		DatabaseURL:        env("SERVICE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/tracker?sslmode=disable"),
		TemporalAddress:    env("SERVICE_TEMPORAL_ADDRESS", "127.0.0.1:7233"),
		TemporalNamespace:  env("SERVICE_TEMPORAL_NAMESPACE", "default"),
		TaskQueue:          env("SERVICE_TASK_QUEUE", "tracker"),
		JWTSecret:          env("SERVICE_JWT_SECRET", ""),
		Registration:       env("SERVICE_REGISTRATION", "open"),
		Profile:            env("SERVICE_PROFILE", "development"),
		TLSCert:            env("SERVICE_TLS_CERT", ""),
		TLSKey:             env("SERVICE_TLS_KEY", ""),
		PublicURL:          env("SERVICE_PUBLIC_URL", "http://localhost:3000"),
		DNSResolver:        env("SERVICE_DNS_RESOLVER", ""),
		CodehostSecret:     env("SERVICE_CODEHOST_WEBHOOK_SECRET", ""),
		ChatSigningSecret:  env("SERVICE_CHAT_SIGNING_SECRET", ""),
		ChatBotToken:       env("SERVICE_CHAT_BOT_TOKEN", ""),
		ChatDefaultChannel: env("SERVICE_CHAT_DEFAULT_CHANNEL", ""),
		ChatAPIURL:         env("SERVICE_CHAT_API_URL", ""),
		ChatClientID:       env("SERVICE_CHAT_CLIENT_ID", ""),
		ChatClientSecret:   env("SERVICE_CHAT_CLIENT_SECRET", ""),
		SMTPURL:            env("SERVICE_SMTP_URL", ""),
		SMTPFrom:           env("SERVICE_SMTP_FROM", ""),
		S3Endpoint:         env("SERVICE_S3_ENDPOINT", ""),
		S3Bucket:           env("SERVICE_S3_BUCKET", ""),
		S3AccessKey:        env("SERVICE_S3_ACCESS_KEY", ""),
		S3SecretKey:        env("SERVICE_S3_SECRET_KEY", ""),
		S3Region:           env("SERVICE_S3_REGION", "us-east-1"),
		OTLPEndpoint:       env("SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT", env("OTEL_EXPORTER_OTLP_ENDPOINT", "")),
	}
	var err error
	if c.WebhookAllowPrivate, err = strconv.ParseBool(env("SERVICE_WEBHOOK_ALLOW_PRIVATE", "false")); err != nil {
		return c, nil, errors.New("SERVICE_WEBHOOK_ALLOW_PRIVATE: must be true or false")
	}
	if c.LoginPerIP, err = envInt("SERVICE_LOGIN_LIMIT_PER_IP", 30); err != nil {
		return c, nil, err
	}
	if c.LoginPerEmail, err = envInt("SERVICE_LOGIN_LIMIT_PER_EMAIL", 10); err != nil {
		return c, nil, err
	}
	if c.DBStatementTimeout, err = envDuration("SERVICE_DB_STATEMENT_TIMEOUT", DefaultDBStatementTimeout); err != nil {
		return c, nil, err
	}
	if c.WorkerDBStatementTimeout, err = envDuration("SERVICE_WORKER_DB_STATEMENT_TIMEOUT", DefaultWorkerDBStatementTimeout); err != nil {
		return c, nil, err
	}
	if c.RateLimit, err = envInt("SERVICE_RATE_LIMIT", api.DefaultRateLimit); err != nil {
		return c, nil, err
	}
	if c.RateLimit < 0 {
		return c, nil, errors.New("SERVICE_RATE_LIMIT: must be 0 (off) or a number of requests a minute")
	}
	if c.Attachments, err = loadAttachmentConfig(c.Profile, c.S3Endpoint, c.S3Bucket); err != nil {
		return c, nil, err
	}
	c.PprofAddr = env("SERVICE_PPROF_ADDR", "")
	if c.TrustedProxies, err = api.ParseProxies(env("SERVICE_TRUSTED_PROXIES", "")); err != nil {
		return c, nil, fmt.Errorf("SERVICE_TRUSTED_PROXIES: %w", err)
	}
	if err := c.LogLevel.UnmarshalText([]byte(env("SERVICE_LOG_LEVEL", "info"))); err != nil {
		return c, nil, fmt.Errorf("SERVICE_LOG_LEVEL: %w", err)
	}
	switch c.Registration {
	case "open", "invite_only", "disabled":
	default:
		return c, nil, fmt.Errorf("SERVICE_REGISTRATION: must be open, invite_only or disabled, not %q", c.Registration)
	}
	switch c.Profile {
	case "development", "production":
	default:
		return c, nil, fmt.Errorf("SERVICE_PROFILE: must be development or production, not %q", c.Profile)
	}
	// A multi-tenant service must not let any workspace of its chat app
	// act in an org: production serves connected workspaces only unless
	// told otherwise.
	defaultTenancy := chat.TenancyInstallation
	if c.Profile == "production" {
		defaultTenancy = chat.TenancyConnected
	}
	c.ChatTenancy = env("SERVICE_CHAT_TENANCY", defaultTenancy)
	switch c.ChatTenancy {
	case chat.TenancyInstallation, chat.TenancyConnected:
	default:
		return c, nil, fmt.Errorf("SERVICE_CHAT_TENANCY: must be installation or connected, not %q", c.ChatTenancy)
	}
	if (c.ChatClientID == "") != (c.ChatClientSecret == "") {
		return c, nil, errors.New("SERVICE_CHAT_CLIENT_ID and SERVICE_CHAT_CLIENT_SECRET must be set together")
	}
	if c.SMTPURL != "" {
		if c.SMTPFrom == "" {
			host := "localhost"
			if u, err := url.Parse(c.PublicURL); err == nil && u.Hostname() != "" {
				host = u.Hostname()
			}
			c.SMTPFrom = "Tracker <tracker@" + host + ">"
		}
		if _, err := deliveryact.NewSMTP(c.SMTPURL, c.SMTPFrom); err != nil {
			return c, nil, fmt.Errorf("SERVICE_SMTP_URL, SERVICE_SMTP_FROM: %w", err)
		}
	}
	if c.JWTSecret == "" {
		if c.Profile == "production" {
			return c, nil, errors.New("SERVICE_JWT_SECRET is required when SERVICE_PROFILE=production")
		}
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		c.JWTSecret = hex.EncodeToString(b)
		warnings = append(warnings, "SERVICE_JWT_SECRET is not set: using a random secret; sessions end when the process restarts")
	}
	if k := env("SERVICE_SECRETS_KEY", ""); k != "" {
		if c.SecretsKey, err = secretbox.ParseKey(k); err != nil {
			return c, nil, fmt.Errorf("SERVICE_SECRETS_KEY: %w", err)
		}
	} else if c.Profile == "production" {
		return c, nil, errors.New("SERVICE_SECRETS_KEY is required when SERVICE_PROFILE=production (32 bytes, hex or base64)")
	} else {
		c.SecretsKey = secretbox.RandomKey()
		warnings = append(warnings, "SERVICE_SECRETS_KEY is not set: using a random key; stored SSO client secrets and code-host connection secrets cannot be read after a restart")
	}
	if c.OTLPEndpoint != "" {
		if _, err := tracing.TracesURL(c.OTLPEndpoint); err != nil {
			name := "SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT"
			if env(name, "") == "" {
				name = "OTEL_EXPORTER_OTLP_ENDPOINT (SERVICE_OTEL_EXPORTER_OTLP_ENDPOINT is unset)"
			}
			return c, nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if c.DNSResolver != "" {
		if _, _, err := net.SplitHostPort(c.DNSResolver); err != nil {
			return c, nil, fmt.Errorf("SERVICE_DNS_RESOLVER: must be host:port: %w", err)
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return c, nil, errors.New("SERVICE_TLS_CERT and SERVICE_TLS_KEY must be set together")
	}
	return c, warnings, nil
}

// LogValue masks every secret, so the config can be logged at start.
func (c Config) LogValue() slog.Value {
	mask := func(s string) string {
		if s == "" {
			return ""
		}
		return "***"
	}
	return slog.GroupValue(
		slog.String("addr", c.Addr), slog.String("database_url", MaskURL(c.DatabaseURL)),
		slog.String("temporal_address", c.TemporalAddress), slog.String("temporal_namespace", c.TemporalNamespace),
		slog.String("task_queue", c.TaskQueue), slog.String("jwt_secret", mask(c.JWTSecret)),
		slog.String("registration", c.Registration), slog.String("profile", c.Profile),
		slog.Bool("tls", c.TLSCert != ""), slog.String("public_url", c.PublicURL),
		slog.Bool("webhook_allow_private", c.WebhookAllowPrivate), slog.String("dns_resolver", c.DNSResolver),
		slog.String("codehost_webhook_secret", mask(c.CodehostSecret)),
		slog.String("chat_signing_secret", mask(c.ChatSigningSecret)), slog.String("chat_bot_token", mask(c.ChatBotToken)),
		slog.String("chat_tenancy", c.ChatTenancy), slog.String("chat_client_id", c.ChatClientID),
		slog.String("chat_client_secret", mask(c.ChatClientSecret)),
		slog.String("smtp_url", MaskURL(c.SMTPURL)), slog.String("smtp_from", c.SMTPFrom),
		slog.String("s3_endpoint", c.S3Endpoint), slog.String("s3_bucket", c.S3Bucket),
		slog.String("s3_access_key", mask(c.S3AccessKey)), slog.String("s3_secret_key", mask(c.S3SecretKey)),
		slog.Any("attachments", c.Attachments),
		slog.String("secrets_key", mask(string(c.SecretsKey))),
		slog.Int("login_limit_per_ip", c.LoginPerIP), slog.Int("login_limit_per_email", c.LoginPerEmail),
		slog.Int("rate_limit_per_minute", c.RateLimit),
		slog.Duration("db_statement_timeout", c.DBStatementTimeout),
		slog.Duration("worker_db_statement_timeout", c.WorkerDBStatementTimeout),
		slog.String("trusted_proxies", strings.Join(c.TrustedProxies, ",")),
		slog.String("pprof_addr", c.PprofAddr),
		slog.String("otlp_endpoint", MaskURL(c.OTLPEndpoint)),
	)
}

// MaskURL hides the password of a connection URL.
func MaskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "***"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// secretAttr names attributes that must never be logged in clear.
func secretAttr(key string) bool {
	k := strings.ToLower(key)
	for _, s := range []string{"password", "secret", "token", "authorization", "api_key", "cookie"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

func newLogger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Value.Kind() == slog.KindString && secretAttr(a.Key) && a.Value.String() != "" && a.Value.String() != "***" {
				return slog.String(a.Key, "***")
			}
			return a
		},
	}))
}
