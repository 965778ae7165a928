package main

import (
	"strings"
	"testing"
)

func TestAttachmentConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		env     map[string]string
		wantErr string
		check   func(c Config) bool
	}{
		"development defaults to the local store": {env: map[string]string{},
			check: func(c Config) bool {
				return !c.UseS3() && c.Attachments.LocalDir == ".data/objects" && c.Attachments.MaxBytes == 100<<20
			}},
		"production refuses the local store": {env: map[string]string{"SERVICE_PROFILE": "production", "SERVICE_JWT_SECRET": "x", "SERVICE_SECRETS_KEY": testSecretsKey},
			wantErr: "SERVICE_LOCAL_STORE_ALLOW_PRODUCTION"},
		"production may allow the local store": {env: map[string]string{"SERVICE_PROFILE": "production", "SERVICE_JWT_SECRET": "x", "SERVICE_SECRETS_KEY": testSecretsKey,
			"SERVICE_LOCAL_STORE_ALLOW_PRODUCTION": "true"}, check: func(c Config) bool { return !c.UseS3() }},
		"S3 with MinIO defaults to path style": {env: map[string]string{"SERVICE_PROFILE": "production", "SERVICE_JWT_SECRET": "x", "SERVICE_SECRETS_KEY": testSecretsKey,
			"SERVICE_S3_ENDPOINT": "http://minio:9000", "SERVICE_S3_BUCKET": "b", "SERVICE_S3_PUBLIC_ENDPOINT": "http://localhost:9000/"},
			check: func(c Config) bool {
				return c.UseS3() && c.Attachments.S3PathStyle && c.Attachments.S3PublicURL == "http://localhost:9000"
			}},
		"endpoint without bucket": {env: map[string]string{"SERVICE_S3_ENDPOINT": "http://minio:9000"}, wantErr: "SERVICE_S3_BUCKET"},
		"max bytes not a number":  {env: map[string]string{"SERVICE_ATTACHMENT_MAX_BYTES": "lots"}, wantErr: "SERVICE_ATTACHMENT_MAX_BYTES"},
		"max bytes set": {env: map[string]string{"SERVICE_ATTACHMENT_MAX_BYTES": "1024"},
			check: func(c Config) bool { return c.Attachments.MaxBytes == 1024 }},
	} {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"SERVICE_PROFILE", "SERVICE_JWT_SECRET", "SERVICE_S3_ENDPOINT", "SERVICE_S3_BUCKET",
				"SERVICE_S3_PUBLIC_ENDPOINT", "SERVICE_S3_PATH_STYLE", "SERVICE_ATTACHMENT_MAX_BYTES",
				"SERVICE_LOCAL_STORE_DIR", "SERVICE_LOCAL_STORE_ALLOW_PRODUCTION", "SERVICE_SECRETS_KEY"} {
				t.Setenv(k, tc.env[k])
			}
			c, _, err := loadConfig()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || !tc.check(c) {
				t.Fatalf("config %+v, err %v", c.Attachments, err)
			}
		})
	}
}

// testSecretsKey is a SERVICE_SECRETS_KEY (32 bytes, hex), which production requires.
const testSecretsKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
