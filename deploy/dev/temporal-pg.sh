#!/usr/bin/env bash
# deploy/dev/temporal-pg.sh — the compose stack's Temporal without Docker: the same server
# (go.temporal.io/server v1.27.2, the version of temporalio/auto-setup:1.27.2) built from its Go
# module by `make temporal-server`, with PostgreSQL persistence (postgres12 plugin) set up the
# way auto-setup does it. For measurements against a real Temporal server (cmd/benchrelay
# -temporal-address); `make run` and the tests keep the dev server.
#
#   temporal-pg.sh start    create the databases temporal and temporal_visibility if missing,
#                           apply the schema's versioned migrations (temporal-sql-tool
#                           setup-schema -v 0.0, then update-schema -d …/versioned, as auto-setup
#                           does; idempotent), write the server's config, start it in the
#                           background (pid .data/temporal-pg/server.pid, log
#                           .data/temporal-pg/server.log), wait for the frontend and register
#                           the namespace `default` (retention 24h) if missing
#   temporal-pg.sh stop     stop the server recorded in the pid file
#   temporal-pg.sh status
#   temporal-pg.sh drop     stop it and drop both databases
#
# TEMPORAL_PG_URL  the PostgreSQL server (default postgres://postgres@127.0.0.1:5432, trust auth;
#                  a password in the URL is passed on)
# TEMPORAL_PG_PORT the frontend's gRPC port (default: the first free port from 17233); the other
#                  services take the next ports (history +1, matching +2, worker +3, membership
#                  +100…+103, frontend HTTP +10)
# NUM_HISTORY_SHARDS 4, as auto-setup's default

# shellcheck source=deploy/dev/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TEMPORAL_SERVER_VERSION="${TEMPORAL_SERVER_VERSION:-v1.27.2}"
TPG_DIR="$TRACKER_DATA/temporal-pg"
TPG_PIDFILE="$TPG_DIR/server.pid"
TPG_LOG="$TPG_DIR/server.log"
TPG_SERVER="${TEMPORAL_SERVER_BIN:-$TRACKER_ROOT/bin/temporal-server}"
TPG_SQLTOOL="${TEMPORAL_SQL_TOOL_BIN:-$TRACKER_ROOT/bin/temporal-sql-tool}"
TPG_CLI="${TEMPORAL_BIN:-$TRACKER_ROOT/bin/temporal}"
TEMPORAL_PG_URL="${TEMPORAL_PG_URL:-postgres://postgres@127.0.0.1:5432}"
NUM_HISTORY_SHARDS="${NUM_HISTORY_SHARDS:-4}"

_p_log() { DEV_LOG_TAG=temporal-pg dev_log "$@"; }
_p_die() { DEV_LOG_TAG=temporal-pg dev_die "$@"; }

# The URL's parts: user[:password]@host:port.
_p_parse() {
  local rest=${TEMPORAL_PG_URL#*://} cred hostport
  rest=${rest%%/*}
  rest=${rest%%\?*}
  if [[ $rest == *@* ]]; then cred=${rest%@*}; hostport=${rest##*@}; else cred=postgres; hostport=$rest; fi
  PG_USER=${cred%%:*}
  PG_PASSWORD=""
  [[ $cred == *:* ]] && PG_PASSWORD=${cred#*:}
  PG_HOST=${hostport%:*}
  PG_PORT=5432
  [[ $hostport == *:* ]] && PG_PORT=${hostport##*:}
  return 0
}

_p_sql() { # DB ARGS...: temporal-sql-tool against one database
  local db=$1
  shift
  "$TPG_SQLTOOL" --plugin postgres12 --ep "$PG_HOST" -p "$PG_PORT" -u "$PG_USER" ${PG_PASSWORD:+--pw "$PG_PASSWORD"} --db "$db" "$@"
}

# The server module's directory in the module cache (the versioned schema ships in it).
_p_moddir() {
  local tmp dir
  tmp=$(mktemp -d)
  dir=$(cd "$tmp" && GOFLAGS= go mod download -json "go.temporal.io/server@$TEMPORAL_SERVER_VERSION" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rm -rf "$tmp"
  [ -d "$dir/schema/postgresql/v12" ] || _p_die "no schema in the module go.temporal.io/server@$TEMPORAL_SERVER_VERSION ($dir)"
  printf '%s\n' "$dir"
}

_p_schema() {
  local mod db
  mod=$(_p_moddir)
  for db in temporal temporal_visibility; do
    _p_sql "$db" create-database >/dev/null 2>&1 || true # exists already: fine
  done
  _p_log "schema: $mod/schema/postgresql/v12/{temporal,visibility}/versioned"
  # setup-schema -v 0.0 creates the version tables (a second run only says they exist);
  # update-schema applies the versions not yet applied.
  _p_sql temporal setup-schema -v 0.0 >>"$TPG_LOG" 2>&1 || true
  _p_sql temporal update-schema -d "$mod/schema/postgresql/v12/temporal/versioned" >>"$TPG_LOG" 2>&1 ||
    _p_die "update-schema of temporal failed (log $TPG_LOG)"
  _p_sql temporal_visibility setup-schema -v 0.0 >>"$TPG_LOG" 2>&1 || true
  _p_sql temporal_visibility update-schema -d "$mod/schema/postgresql/v12/visibility/versioned" >>"$TPG_LOG" 2>&1 ||
    _p_die "update-schema of temporal_visibility failed (log $TPG_LOG)"
}

_p_config() { # PORT
  local p=$1
  mkdir -p "$TPG_DIR/config"
  cat >"$TPG_DIR/config/development.yaml" <<EOF
# written by deploy/dev/temporal-pg.sh: auto-setup's defaults for DB=postgres12
log:
  stdout: true
  level: warn
persistence:
  numHistoryShards: $NUM_HISTORY_SHARDS
  defaultStore: default
  visibilityStore: visibility
  datastores:
    default:
      sql:
        pluginName: postgres12
        databaseName: temporal
        connectAddr: "$PG_HOST:$PG_PORT"
        connectProtocol: tcp
        user: "$PG_USER"
        password: "$PG_PASSWORD"
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h
    visibility:
      sql:
        pluginName: postgres12
        databaseName: temporal_visibility
        connectAddr: "$PG_HOST:$PG_PORT"
        connectProtocol: tcp
        user: "$PG_USER"
        password: "$PG_PASSWORD"
        maxConns: 10
        maxIdleConns: 10
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: 127.0.0.1
services:
  frontend:
    rpc: {grpcPort: $p, membershipPort: $((p + 100)), bindOnLocalHost: true, httpPort: $((p + 10))}
  history:
    rpc: {grpcPort: $((p + 1)), membershipPort: $((p + 101)), bindOnLocalHost: true}
  matching:
    rpc: {grpcPort: $((p + 2)), membershipPort: $((p + 102)), bindOnLocalHost: true}
  worker:
    rpc: {grpcPort: $((p + 3)), membershipPort: $((p + 103)), bindOnLocalHost: true}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:$p"
dcRedirectionPolicy:
  policy: noop
EOF
}

_p_recorded_pid() {
  local pid
  pid=$(cat "$TPG_PIDFILE" 2>/dev/null) || return 1
  [ -n "$pid" ] && pid_alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'temporal-server' || return 1
  printf '%s\n' "$pid"
}

temporal_pg_start() {
  local port pid i off
  [ -x "$TPG_SERVER" ] && [ -x "$TPG_SQLTOOL" ] || _p_die "$TPG_SERVER or $TPG_SQLTOOL missing: make temporal-server"
  [ -x "$TPG_CLI" ] || _p_die "$TPG_CLI missing (it registers the namespace): make temporal"
  if pid=$(_p_recorded_pid); then
    _p_log "already running (pid $pid): $(cat "$TPG_DIR/address")"
    return 0
  fi
  if pgrep -f -- "--root $TPG_DIR " >/dev/null 2>&1; then
    _p_die "a temporal-server with --root $TPG_DIR runs but is not the one in $TPG_PIDFILE; stop it first"
  fi
  _p_parse
  mkdir -p "$TPG_DIR"
  : >"$TPG_LOG"
  _p_schema
  port=${TEMPORAL_PG_PORT:-}
  if [ -z "$port" ]; then
    port=17233
    while :; do
      port=$(free_port 127.0.0.1 "$port") || _p_die "no free port from 17233"
      for off in 1 2 3 10 100 101 102 103; do
        port_open 127.0.0.1 $((port + off)) && continue 2
      done
      break
    done
  fi
  _p_config "$port"
  _p_log "starting $TPG_SERVER on 127.0.0.1:$port (log $TPG_LOG)"
  # setsid: its own session, so a Ctrl-C in the terminal does not reach it; $! is the server's pid.
  setsid "$TPG_SERVER" --root "$TPG_DIR" --config config --env development --allow-no-auth start \
    </dev/null >>"$TPG_LOG" 2>&1 &
  pid=$!
  printf '%s\n' "$pid" >"$TPG_PIDFILE"
  for ((i = 0; i < 480; i++)); do
    pid_alive "$pid" || { tail -n 30 "$TPG_LOG" >&2; _p_die "the server exited during start-up (log above)"; }
    if "$TPG_CLI" operator cluster health --address "127.0.0.1:$port" >/dev/null 2>&1; then
      break
    fi
    sleep 0.25
  done
  "$TPG_CLI" operator cluster health --address "127.0.0.1:$port" >/dev/null 2>&1 || _p_die "the frontend did not answer in 120 s (log $TPG_LOG)"
  if ! "$TPG_CLI" operator namespace describe --namespace default --address "127.0.0.1:$port" >/dev/null 2>&1; then
    for ((i = 0; i < 60; i++)); do
      "$TPG_CLI" operator namespace create --namespace default --retention 24h --address "127.0.0.1:$port" >/dev/null 2>&1 && break
      sleep 1
    done
    "$TPG_CLI" operator namespace describe --namespace default --address "127.0.0.1:$port" >/dev/null 2>&1 ||
      _p_die "could not register the namespace default (log $TPG_LOG)"
  fi
  printf '127.0.0.1:%s\n' "$port" >"$TPG_DIR/address"
  _p_log "ready (pid $pid): 127.0.0.1:$port, namespace default"
}

temporal_pg_stop() {
  local pid
  if pid=$(_p_recorded_pid); then
    _p_log "stopping the server (pid $pid)"
    stop_pid "$pid" 30
  fi
  rm -f "$TPG_PIDFILE" "$TPG_DIR/address"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case ${1:-start} in
  start)
    temporal_pg_start
    echo "Temporal (PostgreSQL persistence) at $(cat "$TPG_DIR/address"), namespace default"
    ;;
  stop) temporal_pg_stop ;;
  status)
    if pid=$(_p_recorded_pid); then
      echo "running (pid $pid) at $(cat "$TPG_DIR/address")"
    else
      echo "not running"
      exit 1
    fi
    ;;
  drop)
    temporal_pg_stop
    _p_parse
    for db in temporal temporal_visibility; do
      _p_sql "$db" drop-database -f >/dev/null 2>&1 || true
    done
    ;;
  *)
    echo "usage: $0 start | stop | status | drop" >&2
    exit 2
    ;;
  esac
fi
