#!/usr/bin/env bash
# deploy/dev/test.sh — the whole test suite (what `make test` runs after `make temporal`):
#   1. PostgreSQL for the tests: the server at TEST_DATABASE_URL (default: the local `postgres`
#      database), or a private cluster under .data/pg (postgres.sh); the tests create their own
#      databases from this URL
#   2. TRACKER_TEMPORAL_CLI=bin/temporal, which the end-to-end tests start their dev servers with,
#      and TRACKER_MINIO_BIN=bin/minio, the S3-compatible server the attachment tests start
#   3. TRACKER_CHROMIUM, the headless browser the chart rendering test draws an SVG with: Debian's
#      chromium, installed with apt-get when missing (the test then requires it; it skips only
#      when no browser could be installed)
#   4. go test -count=1 -p 2 -timeout 60m ./...   (GO_TEST_FLAGS and GO_TEST_PKGS override)
# The exit code is go test's; a private cluster it started is stopped on exit.
set -euo pipefail

# shellcheck source=deploy/dev/postgres.sh
. "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"
cd "$TRACKER_ROOT"

trap 'pg_cleanup || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

pg_ensure TEST_DATABASE_URL 'postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'
DEV_LOG_TAG="test" dev_log "TEST_DATABASE_URL=$(mask_url "$TEST_DATABASE_URL")"

export TRACKER_TEMPORAL_CLI="${TRACKER_TEMPORAL_CLI:-$TRACKER_ROOT/bin/temporal}"
if [ ! -x "$TRACKER_TEMPORAL_CLI" ]; then
  "${MAKE:-make}" --no-print-directory temporal
fi
DEV_LOG_TAG="test" dev_log "TRACKER_TEMPORAL_CLI=$TRACKER_TEMPORAL_CLI"
export TRACKER_MINIO_BIN="${TRACKER_MINIO_BIN:-$TRACKER_ROOT/bin/minio}"
if [ ! -x "$TRACKER_MINIO_BIN" ]; then
  "${MAKE:-make}" --no-print-directory minio
fi
DEV_LOG_TAG="test" dev_log "TRACKER_MINIO_BIN=$TRACKER_MINIO_BIN"

chromium_bin="${TRACKER_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
if [ -z "$chromium_bin" ] && command -v apt-get >/dev/null; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo -n"
  DEV_LOG_TAG="test" dev_log "installing chromium (apt-get install -y chromium)"
  $sudo apt-get install -y chromium >/dev/null 2>&1 ||
    { $sudo apt-get update >/dev/null 2>&1 && $sudo apt-get install -y chromium >/dev/null 2>&1; } || true
  chromium_bin="$(command -v chromium || true)"
fi
if [ -n "$chromium_bin" ]; then
  export TRACKER_CHROMIUM="$chromium_bin"
  DEV_LOG_TAG="test" dev_log "TRACKER_CHROMIUM=$TRACKER_CHROMIUM"
else
  DEV_LOG_TAG="test" dev_log "no chromium could be installed: the chart rendering test is skipped"
fi

read -r -a flags <<<"${GO_TEST_FLAGS:--count=1 -p 2 -timeout 60m}"
read -r -a pkgs <<<"${GO_TEST_PKGS:-./...}"
rc=0
go test "${flags[@]}" "${pkgs[@]}" || rc=$?
exit "$rc"
