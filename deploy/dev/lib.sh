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
