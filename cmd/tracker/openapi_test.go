package main

import (
	"io"
	"log/slog"
	"sort"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/docs"
	"tracker/domain"
)

// routeApp is the binary's app as serve builds it (with the local object
// store, whose presigned URLs are routes too); building it touches no
// database.
func routeApp(t *testing.T) *fiber.App {
	cfg := Config{JWTSecret: "route-set-secret-0123456789abcdef0123", Registration: "open", PublicURL: "http://tracker.test"}
	cfg.Attachments.LocalDir = t.TempDir()
	s := newServices(cfg, nil, domain.SystemClock{})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return api.New(api.Deps{Log: log, Metrics: api.NewMetrics(), Auth: s.Accounts}, modules(cfg, s, log)...)
}

// TestOpenAPIListsEveryRoute: the (method, path) pairs the binary serves are
// exactly the operations of docs/openapi.yaml. A new route needs its
// operation in its feature's fragment (docs/openapi/<feature>.yaml, then
// `make openapi`); a removed one takes its operation with it. HEAD is
// Fiber's automatic twin of GET and is not listed.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	served := map[string]bool{}
	for _, r := range routeApp(t).GetRoutes(true) {
		if r.Method == fiber.MethodHead {
			continue
		}
		served[r.Method+" "+docs.FiberPath(r.Path)] = true
	}
	ops, err := docs.Operations(docs.YAML)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, o := range ops {
		documented[o.Method+" "+o.Path] = true
	}
	var missing, extra []string
	for r := range served {
		if !documented[r] {
			missing = append(missing, r)
		}
	}
	for r := range documented {
		if !served[r] {
			extra = append(extra, r)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("served but not in docs/openapi.yaml (add them to docs/openapi/<feature>.yaml, then make openapi):\n  %s",
			strings.Join(missing, "\n  "))
	}
	if len(extra) > 0 {
		t.Errorf("in docs/openapi.yaml but not served:\n  %s", strings.Join(extra, "\n  "))
	}
	if len(served) < 100 {
		t.Fatalf("only %d routes served", len(served))
	}
}
