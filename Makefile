# Tracker — build, run and test. `make help` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := build

GO               ?= go
TEMPORAL_VERSION ?= v1.5.1
# The Temporal server of the compose stack (temporalio/auto-setup:1.27.2), built from its module.
TEMPORAL_SERVER_VERSION ?= v1.27.2
# MinIO publishes no semver tags the module proxy serves; this is the newest
# commit of github.com/minio/minio on the proxy (2026-02-12), which builds with Go 1.26.
MINIO_VERSION    ?= v0.0.0-20260212201848-7aac2a2c5b7c
# Mutation testing (make mutate): github.com/go-gremlins/gremlins, built from its module.
GREMLINS_VERSION ?= v0.6.0
PKG              ?= ./domain/...
# One worker (the suite shares a small machine; DB tests of one package must not race another run),
# a timeout of 10x the package's own covered test run, so a slow build is not called a timeout, and
# the mutate build tag, which leaves out the few tests marked //go:build !mutate (each takes most of
# its package's run time, and a mutation run repeats the package's tests once per mutant).
MUTATE_FLAGS     ?= --workers 1 --timeout-coefficient 10 --tags mutate
BENCH_URL        ?= http://localhost:3000
GOFILES_CMD       = find . -name '*.go' -not -path './bin/*' -not -path './.data/*' -not -path './.git/*' -print0

export BENCH_URL

.PHONY: help build mailcatcher temporal temporal-server minio run stack soak test faults lint bench fuzz mutate clean distclean openapi docsui

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

build: ## bin/tracker
	$(GO) build -o bin/tracker ./cmd/tracker

mailcatcher: bin/mailcatcher ## bin/mailcatcher, the local mail catcher of make run (SMTP + a web page)

bin/mailcatcher: $(wildcard cmd/mailcatcher/*.go)
	$(GO) build -o bin/mailcatcher ./cmd/mailcatcher

temporal: bin/temporal ## bin/temporal, the pinned Temporal CLI (dev server), built once

bin/temporal:
	@echo "building the Temporal CLI $(TEMPORAL_VERSION) into bin/ (a cold build takes ~5 min)"
	GOBIN=$(CURDIR)/bin $(GO) install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_VERSION)

temporal-server: bin/temporal-server ## bin/temporal-server and bin/temporal-sql-tool, the compose stack's Temporal v1.27.2 (not for make test; deploy/dev/temporal-pg.sh runs it on PostgreSQL)

bin/temporal-server:
	@echo "building the Temporal server $(TEMPORAL_SERVER_VERSION) and its SQL schema tool into bin/ (a cold build took 44 min on a loaded 2-core machine)"
	tmp="$$(mktemp -d)" && trap 'rm -rf "$$tmp"' EXIT && \
	GOBIN="$$tmp" $(GO) install go.temporal.io/server/cmd/server@$(TEMPORAL_SERVER_VERSION) \
		go.temporal.io/server/cmd/tools/sql@$(TEMPORAL_SERVER_VERSION) && \
	mv "$$tmp/sql" bin/temporal-sql-tool && mv "$$tmp/server" bin/temporal-server

minio: bin/minio ## bin/minio, the pinned MinIO server (S3-compatible storage for the tests), built once

bin/minio:
	@echo "building the MinIO server $(MINIO_VERSION) into bin/ (a cold build takes ~10 min)"
	GOBIN=$(CURDIR)/bin $(GO) install github.com/minio/minio@$(MINIO_VERSION)

run: ## the whole local stack: PostgreSQL, Temporal dev server + UI, a mail catcher, tracker dev (Ctrl-C stops it)
	@bash deploy/dev/run.sh

STACK_APIS    ?= 2
STACK_WORKERS ?= 2
export STACK_APIS STACK_WORKERS
stack: ## the production shape: STACK_APIS api (2) and STACK_WORKERS worker (2) processes behind one proxy on :3000, one PostgreSQL, one Temporal dev server (Ctrl-C stops it)
	@bash deploy/dev/stack.sh

SOAK_DURATION ?= 30m
SOAK_RATE     ?= 100
soak: ## mixed load at SOAK_RATE requests/s (100) for SOAK_DURATION (30m) against `make stack`; fails when memory, connections or outbox lag keep growing
	@$(GO) build -o bin/soak ./cmd/soak
	@SERVICE_LOG_LEVEL="$${SERVICE_LOG_LEVEL:-warn}" \
		bash deploy/dev/stack.sh bin/soak -duration $(SOAK_DURATION) -rate $(SOAK_RATE)

test: temporal minio ## the whole suite against real PostgreSQL, the Temporal dev server and MinIO
	@TRACKER_TEMPORAL_CLI="$(CURDIR)/bin/temporal" TRACKER_MINIO_BIN="$(CURDIR)/bin/minio" bash deploy/dev/test.sh
	@FUZZTIME=2000x bash deploy/dev/fuzz.sh

faults: temporal ## the fault suite's long version (FAULTS=long), one case at a time; prints each case's FAULT line of figures (full log in .data/faults.log)
	@mkdir -p .data && set -o pipefail && FAULTS=long TRACKER_TEMPORAL_CLI="$(CURDIR)/bin/temporal" \
		$(GO) test -count=1 -p 1 -parallel 1 -timeout 90m -v -run '^TestFault' ./e2e/ ./workflows/webhook/ 2>&1 | \
		tee .data/faults.log | grep -E 'FAULT |^(--- |ok|FAIL)'

openapi: ## docs/openapi.yaml from docs/openapi-root.yaml and the fragments docs/openapi/*.yaml
	$(GO) test -count=1 ./docs -run TestOpenAPIIsCurrent -update

REDOC_VERSION ?= $(shell cat api/docsui/REDOC_VERSION)
docsui: ## refresh the embedded Redoc bundle of /docs (npm pack redoc@REDOC_VERSION into api/docsui)
	@tmp="$$(mktemp -d)" && trap 'rm -rf "$$tmp"' EXIT && cd "$$tmp" && \
	npm pack --silent redoc@$(REDOC_VERSION) >/dev/null && tar xzf redoc-$(REDOC_VERSION).tgz && \
	cp package/bundles/redoc.standalone.js package/LICENSE $(CURDIR)/api/docsui/ && \
	echo $(REDOC_VERSION) > $(CURDIR)/api/docsui/REDOC_VERSION && echo "api/docsui: redoc $(REDOC_VERSION)"

REDOCLY = internal/tools/redocly/node_modules/.bin/redocly

lint: $(REDOCLY) ## gofmt (fails on any unformatted file), go vet, and Redocly CLI on docs/openapi.yaml (docs/redocly.yaml)
	@unformatted="$$($(GOFILES_CMD) | xargs -0 -r gofmt -l)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt: these files need formatting (gofmt -w):"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	@$(REDOCLY) lint --config docs/redocly.yaml --format=stylish docs/openapi.yaml 2>&1 | grep -v '[║╔╚]'; exit "$${PIPESTATUS[0]}"

# The pinned Redocly CLI (internal/tools/redocly/package-lock.json), installed from the npm registry.
$(REDOCLY): internal/tools/redocly/package-lock.json
	npm ci --prefix internal/tools/redocly --no-audit --no-fund --silent
	@touch $@

bench: ## the load benchmark against a running stack at BENCH_URL (default http://localhost:3000)
	$(GO) run ./cmd/bench
	$(GO) run ./cmd/bench -ceiling -clients 32 -rounds 5
	$(GO) run ./cmd/benchbody
	$(GO) run ./cmd/benchreport
	$(GO) run ./cmd/benchreport -entries 1000000 -runs 15 -drilldown=false
	$(GO) run ./cmd/benchexport
	$(GO) run ./cmd/benchimport
	$(GO) run ./cmd/benchrelay
	$(GO) run ./cmd/benchinbox
	$(GO) run ./cmd/benchsearch $(BENCHSEARCH_FLAGS)
	$(GO) test -run '^$$' -bench 'DecodeLargeImport|ImportNames' -benchtime 3x ./domain/exchange/importer/
	$(GO) test -run '^$$' -bench JSONNames -benchtime 20x ./domain/
	$(GO) test -run '^$$' -bench JiraDryRun100k -benchtime 2x ./domain/exchange/sources/
	$(GO) test -run '^$$' -bench ImportJiraCSV -benchtime 1x -timeout 30m ./api/exchange/

FUZZTIME ?= 60s
fuzz: ## every fuzz target for FUZZTIME each (default 60s; make test runs 2000 inputs each)
	@FUZZTIME=$(FUZZTIME) bash deploy/dev/fuzz.sh

# Each package of PKG that has tests is mutated alone (--exclude-files / leaves its subpackages out)
# and every mutant is judged by that package's own tests, so the figures are the package's. go vet is
# off for the mutants' test runs: a mutant is judged by the tests, and vet is make lint's job. -count=1
# keeps gremlins' first (coverage) run out of the test cache: a cached run takes a fraction of a
# second, and the timeout of every mutant is a multiple of it.
mutate: bin/gremlins ## mutation testing of each package in PKG (default ./domain/...) by its own tests, one package at a time; not part of make test
	@rc=0; for d in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.Dir}}{{end}}' $(PKG)); do \
		rel="./$${d#$(CURDIR)/}"; echo "== $$rel"; \
		GOFLAGS="$$GOFLAGS -vet=off -count=1" bin/gremlins unleash $(MUTATE_FLAGS) --exclude-files / "$$rel" || rc=1; \
	done; exit $$rc

bin/gremlins:
	GOBIN=$(CURDIR)/bin $(GO) install github.com/go-gremlins/gremlins/cmd/gremlins@$(GREMLINS_VERSION)

clean: ## remove bin/tracker and .data (stops the private PostgreSQL and Temporal servers first); keeps bin/temporal and bin/minio
	-@bash deploy/dev/temporal.sh stop
	-@bash deploy/dev/temporal-pg.sh stop
	-@bash deploy/dev/postgres.sh stop
	rm -rf bin/tracker .data

distclean: clean ## clean, and remove bin/ (the Temporal CLI and MinIO too)
	rm -rf bin
