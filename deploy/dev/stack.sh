#!/usr/bin/env bash
# deploy/dev/stack.sh — the production shape on this machine (what `make stack` runs):
#   1. make build (bin/tracker) and bin/stack (cmd/stack)
#   2. PostgreSQL: the server at SERVICE_DATABASE_URL, or a private cluster (postgres.sh)
#   3. a Temporal dev server (temporal.sh; reused when one answers on TEMPORAL_PORT)
#   4. bin/stack: `tracker migrate`, STACK_APIS `tracker api` (2) and STACK_WORKERS `tracker worker`
#      (2) processes on free loopback ports behind a round-robin proxy on SERVICE_ADDR (:3000)
# Without arguments it runs until Ctrl-C. With arguments, `stack.sh CMD ARGS...` runs CMD once the
# stack is healthy, with STACK_URL (the proxy), STACK_STATE (the processes as JSON) and
# SERVICE_DATABASE_URL exported, then stops the stack and exits with CMD's status (`make soak`).
# On exit it stops what it started itself, and nothing else.
set -euo pipefail

# shellcheck source=deploy/dev/postgres.sh
. "$(dirname "${BASH_SOURCE[0]}")/postgres.sh"
# shellcheck source=deploy/dev/temporal.sh
. "$(dirname "${BASH_SOURCE[0]}")/temporal.sh"
cd "$TRACKER_ROOT"

stack_traps stack "the stack" 60
DEV_LOG_TAG=stack service_addr 127.0.0.1

"${MAKE:-make}" --no-print-directory build
go build -o bin/stack ./cmd/stack

pg_ensure SERVICE_DATABASE_URL "$PG_DEFAULT_URL"
temporal_ensure

export SERVICE_PROFILE="${SERVICE_PROFILE:-development}"
export SERVICE_WEBHOOK_ALLOW_PRIVATE="${SERVICE_WEBHOOK_ALLOW_PRIVATE:-true}"
export SERVICE_TEMPORAL_ADDRESS="${SERVICE_TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}"
export STACK_STATE="$TRACKER_DATA/stack/stack.json"
mkdir -p "$TRACKER_DATA/stack"
rm -f "$STACK_STATE"

setsid bin/stack -apis "${STACK_APIS:-2}" -workers "${STACK_WORKERS:-2}" -addr "$api_host:$api_port" \
  -logs "$TRACKER_DATA/stack" -state "$STACK_STATE" </dev/null &
MAIN_PID=$!

if [ $# -eq 0 ]; then
  rc=0
  wait "$MAIN_PID" || rc=$?
  MAIN_PID=""
  exit "$rc"
fi

# Wait for the state file (written once every process is healthy), then run the command.
for ((i = 0; i < 600; i++)); do
  [ -s "$STACK_STATE" ] && break
  pid_alive "$MAIN_PID" || DEV_LOG_TAG=stack dev_die "the stack did not start"
  sleep 0.5
done
[ -s "$STACK_STATE" ] || DEV_LOG_TAG=stack dev_die "the stack did not become healthy in 5 minutes"
export STACK_URL="http://$api_host:$api_port"
rc=0
"$@" || rc=$?
exit "$rc"
