package api_test

import (
	"strings"
	"testing"

	"tracker/api/apitest"
	"tracker/schema"
)

func TestSystemEndpoints(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})

	h := env.Do("GET", "/health", "", nil).Expect(t, 200).Map(t)
	if h["status"] != "ok" || h["db_healthy"] != true || h["service"] != "tracker" ||
		int32(h["migration_version"].(float64)) != schema.Latest() || h["uptime_seconds"] == nil || h["database"] == nil {
		t.Fatalf("health %v", h)
	}
	v := env.Do("GET", "/api/v1/version", "", nil).Expect(t, 200).Map(t)
	if v["profile"] != "development" || v["service"] != "tracker" || v["version"] != "test" {
		t.Fatalf("version %v", v)
	}

	r := env.Do("GET", "/api/v1/no/such/route", "", nil).Expect(t, 404)
	if r.ErrorCode() != "not_found" || r.Header.Get("X-Request-Id") == "" {
		t.Fatalf("404 %v %s", r.Header, r.Body)
	}
	env.Do("GET", "/api/v1/auth/me", "", nil).Expect(t, 401)

	m := env.Do("GET", "/metrics", "", nil).Expect(t, 200)
	body := string(m.Body)
	for _, want := range []string{`http_requests_total{method="GET",route="/api/v1/version",status="200"} 1`,
		`route="/health"`, "http_request_duration_seconds_bucket"} {
		if !strings.Contains(body, want) {
			t.Fatalf("metrics lack %q", want)
		}
	}
}
