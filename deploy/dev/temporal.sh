#!/usr/bin/env bash
# deploy/dev/temporal.sh — make sure a Temporal dev server answers on 127.0.0.1:$TEMPORAL_PORT.
#
# Sourced (by run.sh):
#   temporal_ensure    reuse a server already listening on the port; else build bin/temporal if
#                      missing (make temporal) and start `temporal server start-dev` in the
#                      background (SQLite state in .data/temporal.db, WAL journal and
#                      synchronous=normal: far fewer fsyncs per workflow; log in .data/temporal.log;
#                      the custom search attributes TrackerOrgId, TrackerJobKind, TrackerStatus),
#                      then wait until the port answers
#   temporal_cleanup   stop the server, but only if temporal_ensure started it
# Run directly:
#   temporal.sh start  as temporal_ensure, leaves the server running (pid in .data/temporal.pid)
#   temporal.sh stop   stop the server recorded in .data/temporal.pid
#   temporal.sh status
#
# TEMPORAL_PORT (7233) is the frontend's gRPC port, TEMPORAL_UI_PORT (8233) the Web UI's.

# shellcheck source=deploy/dev/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-$((TEMPORAL_PORT + 1000))}"
TEMPORAL_BIN="${TEMPORAL_BIN:-$TRACKER_ROOT/bin/temporal}"
TEMPORAL_PIDFILE="$TRACKER_DATA/temporal.pid"
TEMPORAL_LOG="$TRACKER_DATA/temporal.log"
TEMPORAL_PID=""   # set once temporal_ensure started the server itself
TEMPORAL_WAIT="${TEMPORAL_WAIT:-120}" # seconds to wait for the port

_t_log() { DEV_LOG_TAG=temporal dev_log "$@"; }
_t_die() { DEV_LOG_TAG=temporal dev_die "$@"; }

temporal_ensure() {
  local i
  if port_open 127.0.0.1 "$TEMPORAL_PORT"; then
    _t_log "reusing the server already listening on 127.0.0.1:$TEMPORAL_PORT"
    return 0
  fi
  if [ ! -x "$TEMPORAL_BIN" ]; then
    _t_log "building $TEMPORAL_BIN (make temporal; a cold build takes a few minutes)"
    "${MAKE:-make}" --no-print-directory -C "$TRACKER_ROOT" temporal >&2
  fi
  if port_open 127.0.0.1 "$TEMPORAL_UI_PORT"; then
    _t_die "port $TEMPORAL_UI_PORT (Web UI) is taken; set TEMPORAL_UI_PORT to another one"
  fi
  mkdir -p "$TRACKER_DATA"
  _t_log "starting the dev server on 127.0.0.1:$TEMPORAL_PORT (UI :$TEMPORAL_UI_PORT, log $TEMPORAL_LOG)"
  # setsid: its own session, so a Ctrl-C in the terminal reaches our trap, not the server.
  setsid "$TEMPORAL_BIN" server start-dev \
    --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
    --db-filename "$TRACKER_DATA/temporal.db" \
    --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
    --search-attribute TrackerOrgId=Keyword --search-attribute TrackerJobKind=Keyword \
    --search-attribute TrackerStatus=Keyword \
    </dev/null >>"$TEMPORAL_LOG" 2>&1 &
  TEMPORAL_PID=$!
  printf '%s\n' "$TEMPORAL_PID" >"$TEMPORAL_PIDFILE"
  for ((i = 0; i < TEMPORAL_WAIT * 4; i++)); do
    if ! pid_alive "$TEMPORAL_PID"; then
      wait "$TEMPORAL_PID" 2>/dev/null || true
      TEMPORAL_PID=""
      rm -f "$TEMPORAL_PIDFILE"
      tail -n 20 "$TEMPORAL_LOG" >&2 || true
      _t_die "the dev server exited during start-up (log above)"
    fi
    if port_open 127.0.0.1 "$TEMPORAL_PORT"; then
      _t_log "ready (pid $TEMPORAL_PID)"
      return 0
    fi
    sleep 0.25
  done
  temporal_cleanup
  _t_die "the dev server did not open port $TEMPORAL_PORT in ${TEMPORAL_WAIT}s (log $TEMPORAL_LOG)"
}

temporal_cleanup() {
  [ -n "$TEMPORAL_PID" ] || return 0
  _t_log "stopping the dev server (pid $TEMPORAL_PID)"
  stop_pid "$TEMPORAL_PID" 20
  TEMPORAL_PID=""
  rm -f "$TEMPORAL_PIDFILE"
}

# _t_recorded_pid: the pid in the pid file, if that process is a temporal that still runs.
_t_recorded_pid() {
  local pid
  pid=$(cat "$TEMPORAL_PIDFILE" 2>/dev/null) || return 1
  [ -n "$pid" ] && pid_alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'temporal server start-dev' || return 1
  printf '%s\n' "$pid"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case ${1:-start} in
  start)
    temporal_ensure
    echo "Temporal frontend 127.0.0.1:$TEMPORAL_PORT, Web UI http://127.0.0.1:$TEMPORAL_UI_PORT"
    ;;
  stop)
    if pid=$(_t_recorded_pid); then
      TEMPORAL_PID=$pid
      temporal_cleanup
    else
      rm -f "$TEMPORAL_PIDFILE"
    fi
    ;;
  status)
    if pid=$(_t_recorded_pid); then
      echo "dev server running (pid $pid) on 127.0.0.1:$TEMPORAL_PORT"
    elif port_open 127.0.0.1 "$TEMPORAL_PORT"; then
      echo "something (not started by this script) listens on 127.0.0.1:$TEMPORAL_PORT"
    else
      echo "not running"
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 start | stop | status" >&2
    exit 2
    ;;
  esac
fi
