package api

import (
	"errors"
	"io"
	"strings"
	"testing"

	"tracker/domain"
)

// TestLimitedBody: a streamed body reads whole up to its limit and fails
// with a 413 one byte past it, however the reads are cut.
func TestLimitedBody(t *testing.T) {
	for _, c := range []struct {
		size, limit int
		ok          bool
	}{{10, 10, true}, {9, 10, true}, {11, 10, false}, {5000, 4096, false}, {0, 0, true}} {
		b := &limitedBody{r: strings.NewReader(strings.Repeat("x", c.size)), left: int64(c.limit), limit: c.limit}
		got, err := io.ReadAll(b)
		var de *domain.Error
		switch {
		case c.ok && (err != nil || len(got) != c.size):
			t.Errorf("%d of %d: %d bytes, %v", c.size, c.limit, len(got), err)
		case !c.ok && (!errors.As(err, &de) || de.Kind != domain.KindTooLarge):
			t.Errorf("%d of %d: %v, want a 413", c.size, c.limit, err)
		}
	}
}

// TestBodyLimitsMatchPatterns: an Upload route with a path parameter takes
// its own limit on every path it serves, and only there.
func TestBodyLimitsMatchPatterns(t *testing.T) {
	b := bodyLimits{routeKey("POST", "/api/v1/import"): 5, routeKey("POST", "/api/v1/orgs/:org_id/imports"): 7}
	for path, want := range map[string]int{"/api/v1/import": 5, "/api/v1/orgs/0193/imports": 7, "/API/v1/orgs/x/imports/": 7,
		"/api/v1/orgs/0193/imports/1": 0, "/api/v1/orgs//imports": 0, "/api/v1/orgs/0193/export": 0} {
		got, ok := b.route("POST", path)
		if got != want || ok != (want != 0) {
			t.Errorf("%s: %d %v, want %d", path, got, ok, want)
		}
	}
	if _, ok := b.route("GET", "/api/v1/orgs/0193/imports"); ok {
		t.Error("GET matched a POST route")
	}
}
