# shellcheck shell=bash
# deploy/dev/lib.sh — small helpers shared by the dev scripts (sourced, never run).

# Repository root: two levels above this file, unless TRACKER_ROOT is set.
: "${TRACKER_ROOT:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
TRACKER_DATA="${TRACKER_DATA:-$TRACKER_ROOT/.data}"

dev_log() { printf '[%s] %s\n' "${DEV_LOG_TAG:-dev}" "$*" >&2; }
dev_die() { dev_log "error: $*"; exit 1; }

# port_open HOST PORT: true when something accepts TCP connections there.
port_open() {
  local host=$1 port=$2
  host=${host#[}; host=${host%]}
  # shellcheck disable=SC2016 # $0 and $1 expand in the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" 2>/dev/null
}

# free_port HOST START: prints the first port >= START that nothing listens on.
free_port() {
  local host=$1 port=$2 last=$(($2 + 200))
  while [ "$port" -le "$last" ]; do
    if ! port_open "$host" "$port"; then
      printf '%s\n' "$port"
      return 0
    fi
    port=$((port + 1))
  done
  return 1
}

# apt_install PKG...: installs Debian packages (as root, or through sudo).
apt_install() {
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || dev_die "need root (or sudo) to apt-get install $*"
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null 2>&1 || dev_die "apt-get not found; install $* by hand"
  dev_log "installing $* with apt-get (one time)"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >&2
}

# mask_url URL: the URL with its password replaced by ***.
mask_url() {
  printf '%s\n' "$1" | sed -E 's#^([a-z]+://[^:/@]*):[^@/]*@#\1:***@#'
}

# pid_alive PID: true while the process runs (an exited, unreaped child is not).
pid_alive() {
  local state
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/stat" ] || return 0
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# stop_pid PID [SECONDS]: TERM, wait up to SECONDS (default 20), then KILL.
stop_pid() {
  local pid=$1 secs=${2:-20} i=0
  pid_alive "$pid" || { wait "$pid" 2>/dev/null || true; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  while pid_alive "$pid"; do
    if [ "$i" -ge $((secs * 10)) ]; then
      dev_log "pid $pid did not stop in ${secs}s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
    i=$((i + 1))
  done
  wait "$pid" 2>/dev/null || true
}

# The process a run script started last and waits on (tracker, or bin/stack);
# stack_cleanup stops it.
MAIN_PID=""
# The local mail catcher run.sh started (empty: none); stack_cleanup stops it.
MAIL_PID=""

# stack_traps TAG WHAT SECS: on exit, stop MAIN_PID (named WHAT in the log,
# given SECS to stop), then the Temporal server and PostgreSQL this script
# started itself (temporal.sh, postgres.sh), and nothing else. Ctrl-C and
# TERM are the normal way to stop: they exit 0 through the cleanup, so make
# ends without an error; an error keeps its status.
stack_traps() {
  STACK_TAG=$1 STACK_WHAT=$2 STACK_SECS=$3
  trap stack_cleanup EXIT
  trap 'exit 0' INT TERM
}

# shellcheck disable=SC2317 # invoked by the trap
stack_cleanup() {
  local rc=$?
  # Ignored, not reset: make passes a TERM on to the script once more, and
  # a second Ctrl-C must not cut the cleanup short and leave servers running.
  trap - EXIT
  trap '' INT TERM
  if [ -n "$MAIN_PID" ]; then
    DEV_LOG_TAG=$STACK_TAG dev_log "stopping $STACK_WHAT (pid $MAIN_PID)"
    stop_pid "$MAIN_PID" "$STACK_SECS"
  fi
  if [ -n "${MAIL_PID:-}" ]; then
    DEV_LOG_TAG=$STACK_TAG dev_log "stopping the mail catcher (pid $MAIL_PID)"
    stop_pid "$MAIL_PID" 5
  fi
  temporal_cleanup || true
  pg_cleanup || true
  exit "$rc"
}

# service_addr WILDCARD: sets api_host and api_port from SERVICE_ADDR (default
# :3000; an empty or wildcard host becomes WILDCARD) and fails when something
# already listens there.
service_addr() {
  export SERVICE_ADDR="${SERVICE_ADDR:-:3000}"
  api_port=${SERVICE_ADDR##*:}
  api_host=${SERVICE_ADDR%:*}
  case $api_host in '' | 0.0.0.0 | '[::]') api_host=$1 ;; esac
  if port_open "${api_host/localhost/127.0.0.1}" "$api_port"; then
    dev_die "something already listens on $SERVICE_ADDR (make run or make stack?); stop it or set SERVICE_ADDR"
  fi
}
