package main

import (
	"strings"
	"testing"
)

// TestChatConfig: the chat tenancy follows the profile unless set (a
// multi-tenant production service serves connected workspaces only), and
// an unknown value stops the start.
func TestChatConfig(t *testing.T) {
	prod := map[string]string{"SERVICE_PROFILE": "production", "SERVICE_JWT_SECRET": "x", "SERVICE_SECRETS_KEY": testSecretsKey,
		"SERVICE_LOCAL_STORE_ALLOW_PRODUCTION": "true"}
	with := func(base map[string]string, k, v string) map[string]string {
		m := map[string]string{k: v}
		for bk, bv := range base {
			m[bk] = bv
		}
		return m
	}
	for name, tc := range map[string]struct {
		env     map[string]string
		want    string
		wantErr string
	}{
		"development defaults to installation": {env: map[string]string{}, want: "installation"},
		"production defaults to connected":     {env: prod, want: "connected"},
		"production may choose installation":   {env: with(prod, "SERVICE_CHAT_TENANCY", "installation"), want: "installation"},
		"development may choose connected":     {env: map[string]string{"SERVICE_CHAT_TENANCY": "connected"}, want: "connected"},
		"unknown tenancy":                      {env: map[string]string{"SERVICE_CHAT_TENANCY": "everyone"}, wantErr: "SERVICE_CHAT_TENANCY"},
		"client id without secret":             {env: map[string]string{"SERVICE_CHAT_CLIENT_ID": "1.2"}, wantErr: "SERVICE_CHAT_CLIENT_SECRET"},
		"client secret masked": {env: map[string]string{"SERVICE_CHAT_CLIENT_ID": "1.2", "SERVICE_CHAT_CLIENT_SECRET": "s3cr3t"},
			want: "installation"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, k := range []string{"SERVICE_PROFILE", "SERVICE_JWT_SECRET", "SERVICE_SECRETS_KEY", "SERVICE_LOCAL_STORE_ALLOW_PRODUCTION",
				"SERVICE_CHAT_TENANCY", "SERVICE_CHAT_CLIENT_ID", "SERVICE_CHAT_CLIENT_SECRET"} {
				t.Setenv(k, tc.env[k])
			}
			c, _, err := loadConfig()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || c.ChatTenancy != tc.want {
				t.Fatalf("tenancy %q, want %q (err %v)", c.ChatTenancy, tc.want, err)
			}
			if s := c.LogValue().String(); !strings.Contains(s, "chat_tenancy="+tc.want) || strings.Contains(s, "s3cr3t") {
				t.Fatalf("start log %s", s)
			}
		})
	}
}
