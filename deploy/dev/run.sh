#!/usr/bin/env bash
# deploy/dev/run.sh — the whole local stack (what `make run` runs):
#   1. make build (bin/tracker)
#   2. PostgreSQL: the server at SERVICE_DATABASE_URL, or a private cluster (postgres.sh)
#   3. the Temporal dev server with its Web UI (temporal.sh)
#   4. unless SERVICE_SMTP_URL is set, a local mail catcher (bin/mailcatcher: an SMTP
#      server that keeps every email and shows it on a web page), as the SMTP server
#   5. `bin/tracker dev` (migrations, API on SERVICE_ADDR, in-process worker) until Ctrl-C
# On exit (Ctrl-C, TERM, an error) it stops what it started itself, and nothing else.
# Ctrl-C and TERM are the normal way to stop it: it exits 0 after cleaning up, so
# `make run` ends without an error; an error (or tracker failing) keeps its status.
set -euo pipefail

# shellcheck source=deploy/dev/postgres.sh
. "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"
# shellcheck source=deploy/dev/temporal.sh
. "$(dirname "${BASH_SOURCE[0]}")/temporal.sh"
cd "$TRACKER_ROOT"

stack_traps run tracker 30
DEV_LOG_TAG=run service_addr localhost
API_URL="http://$api_host:$api_port"

"${MAKE:-make}" --no-print-directory build

pg_ensure SERVICE_DATABASE_URL "$PG_DEFAULT_URL"
temporal_ensure

export SERVICE_PROFILE="${SERVICE_PROFILE:-development}"
export SERVICE_WEBHOOK_ALLOW_PRIVATE="${SERVICE_WEBHOOK_ALLOW_PRIVATE:-true}"
export SERVICE_TEMPORAL_ADDRESS="${SERVICE_TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}"
export SERVICE_PUBLIC_URL="${SERVICE_PUBLIC_URL:-$API_URL}"

# Notification emails go to the local mail catcher unless an SMTP server is named.
MAIL_UI=""
if [ -z "${SERVICE_SMTP_URL:-}" ]; then
  "${MAKE:-make}" --no-print-directory bin/mailcatcher
  mail_smtp_port=$(free_port 127.0.0.1 1025) || dev_die "no free port for the mail catcher's SMTP"
  mail_http_port=$(free_port 127.0.0.1 8025) || dev_die "no free port for the mail catcher's web page"
  mkdir -p "$TRACKER_DATA"
  setsid "$TRACKER_ROOT/bin/mailcatcher" -smtp "127.0.0.1:$mail_smtp_port" -http "127.0.0.1:$mail_http_port" \
    </dev/null >>"$TRACKER_DATA/mailcatcher.log" 2>&1 &
  MAIL_PID=$!
  export SERVICE_SMTP_URL="smtp://127.0.0.1:$mail_smtp_port"
  export SERVICE_SMTP_FROM="${SERVICE_SMTP_FROM:-Tracker <tracker@localhost>}"
  MAIL_UI="http://127.0.0.1:$mail_http_port"
fi

# Its own session too: Ctrl-C reaches this script's trap, which stops tracker with TERM.
setsid "$TRACKER_ROOT/bin/tracker" dev </dev/null &
MAIN_PID=$!

# Wait for /health (up to a minute), then print where everything is.
for ((i = 0; i < 240; i++)); do
  pid_alive "$MAIN_PID" || break
  if command -v curl >/dev/null 2>&1; then
    curl -fsS -o /dev/null --max-time 2 "$API_URL/health" 2>/dev/null && break
  else
    port_open "${api_host/localhost/127.0.0.1}" "$api_port" && break
  fi
  sleep 0.25
done
if pid_alive "$MAIN_PID"; then
  cat >&2 <<EOF

  Tracker is running (Ctrl-C stops everything this started)
    API          $API_URL   (REST under /api/v1)
    API docs     $API_URL/docs   (OpenAPI: $API_URL/api/v1/openapi.yaml)
    health       $API_URL/health
    metrics      $API_URL/metrics
    Temporal UI  http://127.0.0.1:$TEMPORAL_UI_PORT   (frontend $SERVICE_TEMPORAL_ADDRESS)
    Mail         ${MAIL_UI:-$(mask_url "$SERVICE_SMTP_URL")}   (notification emails${MAIL_UI:+, caught: SMTP $SERVICE_SMTP_URL})
    PostgreSQL   $(mask_url "$SERVICE_DATABASE_URL")
    data, logs   $TRACKER_DATA

EOF
fi

rc=0
wait "$MAIN_PID" || rc=$?
MAIN_PID=""
exit "$rc"
