package api_test

import (
	"regexp"
	"strings"
	"testing"

	"tracker/api/apitest"
)

// The metrics' labels are copies, not views into the server's reused
// request buffers: after many requests with every method on many routes,
// /metrics still answers 200 and every method label is a real method.
func TestMetricsSurviveOddMethods(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "HEAD"}
	paths := []string{"/api/v1/version", "/health", "/api/v1/auth/me", "/api/v1/nowhere/at/all", "/api/v1/orgs", "/x"}
	for range 3 {
		for _, m := range methods {
			for _, p := range paths {
				env.Do(m, p, "", nil)
			}
		}
	}
	r := env.Do("GET", "/metrics", "", nil).Expect(t, 200)
	env.Do("GET", "/metrics", "", nil).Expect(t, 200)
	re := regexp.MustCompile(`http_requests_total\{method="([^"]*)",route="([^"]*)"`)
	found := 0
	for _, m := range re.FindAllStringSubmatch(string(r.Body), -1) {
		found++
		if !strings.Contains(strings.Join(methods, " "), m[1]) || m[1] == "" {
			t.Errorf("method label %q", m[1])
		}
		if !strings.HasPrefix(m[2], "/") && m[2] != "unmatched" {
			t.Errorf("route label %q", m[2])
		}
	}
	if found < 10 {
		t.Fatalf("only %d series:\n%s", found, r.Body)
	}
}
