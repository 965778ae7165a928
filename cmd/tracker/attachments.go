package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"tracker/domain"
	"tracker/domain/attachment"
	"tracker/store"
	"tracker/store/objectstore"
	"tracker/worker/jobkind"
	attachmentwf "tracker/workflows/attachment"
)

// AttachmentConfig is where attachment bytes live. With SERVICE_S3_BUCKET
// set they go to that S3-compatible bucket; otherwise to the embedded local
// store, which production refuses unless explicitly allowed.
// localUploadLimit bounds an upload the local store receives: the API reads
// it into memory (bounded by the signed content length) before storing it.
const localUploadLimit = 256 << 20

type AttachmentConfig struct {
	MaxBytes       int64  // SERVICE_ATTACHMENT_MAX_BYTES (100 MiB)
	S3PublicURL    string // SERVICE_S3_PUBLIC_ENDPOINT: the S3 host clients reach, when it differs
	S3PathStyle    bool   // SERVICE_S3_PATH_STYLE: default true with SERVICE_S3_ENDPOINT (MinIO), false for AWS
	LocalDir       string // SERVICE_LOCAL_STORE_DIR (.data/objects)
	LocalAllowProd bool   // SERVICE_LOCAL_STORE_ALLOW_PRODUCTION (false)
}

// UseS3 reports whether attachments go to S3 (else the local store).
func (c Config) UseS3() bool { return c.S3Bucket != "" }

func loadAttachmentConfig(profile, s3Endpoint, s3Bucket string) (AttachmentConfig, error) {
	a := AttachmentConfig{
		MaxBytes:    attachment.DefaultMaxBytes,
		S3PublicURL: strings.TrimRight(env("SERVICE_S3_PUBLIC_ENDPOINT", ""), "/"),
		LocalDir:    env("SERVICE_LOCAL_STORE_DIR", ".data/objects"),
	}
	var err error
	if s := env("SERVICE_ATTACHMENT_MAX_BYTES", ""); s != "" {
		if a.MaxBytes, err = strconv.ParseInt(s, 10, 64); err != nil || a.MaxBytes < 1 {
			return a, errors.New("SERVICE_ATTACHMENT_MAX_BYTES: must be a positive integer (bytes)")
		}
	}
	if a.MaxBytes > localUploadLimit && s3Bucket == "" {
		return a, fmt.Errorf("SERVICE_ATTACHMENT_MAX_BYTES: the local store takes uploads through the API, at most %d bytes", localUploadLimit)
	}
	if a.S3PathStyle, err = strconv.ParseBool(env("SERVICE_S3_PATH_STYLE", strconv.FormatBool(s3Endpoint != ""))); err != nil {
		return a, errors.New("SERVICE_S3_PATH_STYLE: must be true or false")
	}
	if a.LocalAllowProd, err = strconv.ParseBool(env("SERVICE_LOCAL_STORE_ALLOW_PRODUCTION", "false")); err != nil {
		return a, errors.New("SERVICE_LOCAL_STORE_ALLOW_PRODUCTION: must be true or false")
	}
	if s3Bucket == "" && s3Endpoint != "" {
		return a, errors.New("SERVICE_S3_BUCKET is required with SERVICE_S3_ENDPOINT")
	}
	if s3Bucket == "" && profile == "production" && !a.LocalAllowProd {
		return a, errors.New("attachments: SERVICE_PROFILE=production needs SERVICE_S3_BUCKET (object storage); " +
			"the embedded local store keeps files on this node's disk only, set SERVICE_LOCAL_STORE_ALLOW_PRODUCTION=true to use it anyway")
	}
	return a, nil
}

// LogValue shows the settings (no secrets here).
func (a AttachmentConfig) LogValue() slog.Value {
	return slog.GroupValue(slog.Int64("max_bytes", a.MaxBytes), slog.String("s3_public_endpoint", a.S3PublicURL),
		slog.Bool("s3_path_style", a.S3PathStyle), slog.String("local_store_dir", a.LocalDir),
		slog.Bool("local_store_allow_production", a.LocalAllowProd))
}

// localSigningKey derives the local store's URL-signing key from the JWT
// secret, so every replica sharing the secret verifies the same URLs.
func localSigningKey(jwtSecret string) []byte {
	m := hmac.New(sha256.New, []byte(jwtSecret))
	m.Write([]byte("tracker/local-object-store/v1"))
	return m.Sum(nil)
}

// openObjects builds the configured object store and, for the local store,
// the handler of its /storage/ URLs. loadConfig has checked the settings,
// so an error here is a programming error.
func openObjects(cfg Config) (objectstore.Store, http.Handler) {
	if cfg.UseS3() {
		s, err := objectstore.NewS3(objectstore.S3Config{Endpoint: cfg.S3Endpoint, Public: cfg.Attachments.S3PublicURL,
			Bucket: cfg.S3Bucket, Region: cfg.S3Region, AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey,
			PathStyle: cfg.Attachments.S3PathStyle})
		if err != nil {
			panic(err)
		}
		return s, nil
	}
	l, err := objectstore.NewLocal(cfg.Attachments.LocalDir, strings.TrimRight(cfg.PublicURL, "/")+"/storage",
		localSigningKey(cfg.JWTSecret), nil)
	if err != nil {
		panic(err)
	}
	return l, l
}

// ensureBucket creates the bucket (or the local directory) in development;
// production expects it provisioned (compose and k8s have an init step).
func ensureBucket(ctx context.Context, cfg Config, log *slog.Logger, objects objectstore.Store) {
	if cfg.Profile != "development" {
		return
	}
	if err := objects.EnsureBucket(ctx); err != nil {
		log.Error("could not create the attachments bucket; uploads fail until it exists", "store", objects.Kind(), "error", err)
	}
}

// attachmentService is the attachment use cases on the configured store.
func attachmentService(cfg Config, db *store.DB, objects objectstore.Store, clock domain.Clock) *attachment.Service {
	return attachment.New(db, objects, clock, cfg.Attachments.MaxBytes)
}

// attachmentRegistration is the attachments' durable work (object removal,
// the cleanup Schedule) on the worker.
func attachmentRegistration(cfg Config, db *store.DB, clock domain.Clock) jobkind.Registration {
	objects, _ := openObjects(cfg)
	return attachmentwf.Register(attachmentwf.Deps{Attachments: attachmentService(cfg, db, objects, clock)})
}
