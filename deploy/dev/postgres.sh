#!/usr/bin/env bash
# deploy/dev/postgres.sh — make sure a PostgreSQL answers for local runs and tests.
#
# Sourced (by run.sh and test.sh):
#   pg_ensure VAR DEFAULT_URL   use the server at ${VAR:-DEFAULT_URL} when it answers, else start
#                               a private cluster under .data/pg; create the URL's database if it
#                               does not exist; export VAR (adjusted to the private cluster's port).
#   pg_cleanup                  stop the private cluster, but only if pg_ensure started it.
# Run directly:
#   postgres.sh start [VAR [DEFAULT_URL]]   as pg_ensure, leaves the cluster running and prints
#                                           `export VAR=URL` on stdout (for eval)
#   postgres.sh stop                        stop the private cluster under .data/pg if it runs
#   postgres.sh status                      tell whether the private cluster runs
#
# The private cluster: binaries from /usr/lib/postgresql/*/bin (apt-get install postgresql when
# missing), run as the `postgres` OS user when we are root (initdb refuses root), trust auth,
# TCP on 127.0.0.1 only (no Unix socket), at the URL's port if free, else the next free one.

# shellcheck source=deploy/dev/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PG_DEFAULT_URL='postgres://postgres@127.0.0.1:5432/tracker?sslmode=disable'
PG_BASE="${PG_BASE:-$TRACKER_DATA/pg}" # the private cluster: $PG_BASE/data, $PG_BASE/postgres.log
PG_STARTED=0                            # 1 once pg_ensure started the private cluster itself

_pg_log() { DEV_LOG_TAG=postgres dev_log "$@"; }
_pg_die() { DEV_LOG_TAG=postgres dev_die "$@"; }

# _pg_parse URL: sets PGU_SCHEME PGU_USERINFO PGU_HOST PGU_PORT PGU_DB PGU_QUERY.
_pg_parse() {
  local re='^(postgres(ql)?)://(([^@/]*)@)?(\[[^]/]*\]|[^:/?]*)(:([0-9]+))?(/([^?]*))?(\?(.*))?$'
  [[ $1 =~ $re ]] || return 1
  PGU_SCHEME=${BASH_REMATCH[1]}
  PGU_USERINFO=${BASH_REMATCH[4]}
  PGU_HOST=${BASH_REMATCH[5]:-127.0.0.1}
  PGU_PORT=${BASH_REMATCH[7]:-5432}
  PGU_DB=${BASH_REMATCH[9]}
  PGU_QUERY=${BASH_REMATCH[11]}
}

# _pg_url USERINFO HOST PORT DB QUERY: assembles a URL.
_pg_url() {
  local u="$PGU_SCHEME://"
  [ -n "$1" ] && u+="$1@"
  u+="$2:$3/$4"
  [ -n "$5" ] && u+="?$5"
  printf '%s\n' "$u"
}

# _pg_bindir [MAJOR]: the newest /usr/lib/postgresql/*/bin (or the given major's).
_pg_bindir() {
  local d
  if [ -n "${1:-}" ]; then
    d=/usr/lib/postgresql/$1/bin
    [ -x "$d/pg_ctl" ] && { printf '%s\n' "$d"; return 0; }
    return 1
  fi
  d=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && [ -x "$d/pg_ctl" ] && { printf '%s\n' "$d"; return 0; }
  return 1
}

# _pg_tool NAME: path of a client tool (PATH first, then the newest server bin dir).
_pg_tool() {
  local d
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  d=$(_pg_bindir) && [ -x "$d/$1" ] && { printf '%s\n' "$d/$1"; return 0; }
  return 1
}

# _pg_answers URL: true when a server accepts connections at URL (waits out a starting server)
# and lets us log in to its `postgres` database with the URL's credentials (a fresh Debian
# cluster answers on 127.0.0.1 but wants a password: then we use a private cluster instead).
_pg_answers() {
  local isready rc i err
  if isready=$(_pg_tool pg_isready); then
    for i in 1 2 3 4 5 6 7 8 9 10; do
      rc=0
      "$isready" -q -t 3 -d "$1" || rc=$?
      [ "$rc" -eq 0 ] && break
      [ "$rc" -ne 1 ] && return 1 # 2: no response, 3: bad parameters
      [ "$i" -eq 1 ] && _pg_log "server at $(mask_url "$1") is starting; waiting"
      sleep 1
    done
    [ "$rc" -eq 0 ] || return 1
  fi
  _pg_parse "$1"
  if ! err=$("$(_pg_tool psql)" -X -w -q -t -A -c 'select 1' \
    -d "$(_pg_url "$PGU_USERINFO" "$PGU_HOST" "$PGU_PORT" postgres "$PGU_QUERY")" 2>&1 </dev/null); then
    _pg_log "a server answers at $(mask_url "$1") but we cannot log in to it: ${err//$'\n'/ }"
    return 1
  fi
}

# _pg_as CMD...: runs CMD as the postgres OS user when we are root, else as ourselves.
_pg_as() {
  if [ "$(id -u)" -ne 0 ]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && su -s /bin/sh postgres -c "$(printf '%q ' "$@")")
  fi
}

# _pg_private_dir: makes $PG_BASE usable by the user that runs the cluster.
_pg_private_dir() {
  mkdir -p "$PG_BASE"
  [ "$(id -u)" -ne 0 ] && { chmod 700 "$PG_BASE"; return 0; }
  if ! id postgres >/dev/null 2>&1; then
    _pg_log "creating the postgres OS user"
    useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash postgres
  fi
  chown postgres:postgres "$PG_BASE"
  chmod 700 "$PG_BASE"
  if ! _pg_as test -w "$PG_BASE"; then
    # A parent directory (a home directory, say) is closed to the postgres user: keep the cluster
    # under /tmp instead, and leave a symlink in .data so that it can be found (and cleaned).
    local alt
    alt="/tmp/tracker-pg-$(printf '%s' "$TRACKER_ROOT" | cksum | cut -d' ' -f1)"
    _pg_log "the postgres user cannot reach $PG_BASE; using $alt instead"
    rmdir "$PG_BASE" 2>/dev/null || true
    mkdir -p "$alt"
    chown postgres:postgres "$alt"
    chmod 700 "$alt"
    [ -e "$PG_BASE" ] || ln -s "$alt" "$PG_BASE"
    PG_BASE=$alt
  fi
}

# _pg_private_running: true when the private cluster runs; sets PG_PRIVATE_PORT.
_pg_private_running() {
  local data bindir major
  data=$(readlink -f "$PG_BASE" 2>/dev/null || printf '%s' "$PG_BASE")/data
  [ -s "$data/PG_VERSION" ] || return 1
  major=$(cat "$data/PG_VERSION")
  bindir=$(_pg_bindir "$major") || return 1
  _pg_as "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1 || return 1
  PG_PRIVATE_PORT=$(sed -n 4p "$data/postmaster.pid")
  [ -n "$PG_PRIVATE_PORT" ]
}

# _pg_private_start WANT_PORT: starts (or reuses) the private cluster; sets PG_PRIVATE_PORT.
_pg_private_start() {
  local want=$1 data log bindir major port
  _pg_private_dir
  data="$PG_BASE/data"
  log="$PG_BASE/postgres.log"
  if _pg_private_running; then
    _pg_log "reusing the private cluster already running at 127.0.0.1:$PG_PRIVATE_PORT ($data)"
    return 0
  fi
  if [ -s "$data/PG_VERSION" ]; then
    major=$(cat "$data/PG_VERSION")
    bindir=$(_pg_bindir "$major") ||
      _pg_die "$data was made by PostgreSQL $major, whose binaries are missing; remove it (make clean) and retry"
  else
    bindir=$(_pg_bindir) || _pg_die "no PostgreSQL binaries under /usr/lib/postgresql"
    _pg_log "initdb $data ($("$bindir/postgres" --version))"
    if ! _pg_as "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$PG_BASE/initdb.log" 2>&1; then
      rm -rf "$data"
      _pg_as "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --no-locale >"$PG_BASE/initdb.log" 2>&1 ||
        { cat "$PG_BASE/initdb.log" >&2; _pg_die "initdb failed"; }
    fi
  fi
  port=$want
  if port_open 127.0.0.1 "$port"; then
    port=$(free_port 127.0.0.1 $((want + 1))) || _pg_die "no free port above $want"
    _pg_log "port $want is taken; the private cluster uses $port"
  fi
  _pg_log "starting the private cluster on 127.0.0.1:$port (log $log)"
  if ! _pg_as "$bindir/pg_ctl" -D "$data" -l "$log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='' -c synchronous_commit=off" start >/dev/null; then
    tail -n 20 "$log" >&2 2>/dev/null || true
    _pg_die "the private cluster did not start"
  fi
  PG_STARTED=1
  PG_PRIVATE_PORT=$port
}

# _pg_create_db URL: creates the URL's database unless it exists (through the `postgres` db).
_pg_create_db() {
  local url=$1 psql maint
  _pg_parse "$url"
  case $PGU_DB in '' | postgres) return 0 ;; esac
  psql=$(_pg_tool psql) || _pg_die "psql not found"
  maint=$(_pg_url "$PGU_USERINFO" "$PGU_HOST" "$PGU_PORT" postgres "$PGU_QUERY")
  "$psql" -X -w -q -t -A -v ON_ERROR_STOP=1 -v db="$PGU_DB" -d "$maint" >/dev/null <<'SQL' ||
SELECT format('CREATE DATABASE %I', :'db')
WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db')
\gexec
SQL
    _pg_die "could not create database $PGU_DB at $(mask_url "$maint")"
}

# pg_ensure VAR [DEFAULT_URL]
pg_ensure() {
  local var=$1 def=${2:-$PG_DEFAULT_URL} url userinfo
  url=${!var:-$def}
  _pg_parse "$url" || _pg_die "$var is not a postgres:// URL: $(mask_url "$url")"
  if ! _pg_tool psql >/dev/null || ! _pg_tool pg_isready >/dev/null; then
    apt_install postgresql
  fi
  if _pg_answers "$url"; then
    _pg_log "using the server at $(mask_url "$url")"
  else
    if [ -z "$(_pg_bindir)" ]; then
      apt_install postgresql
    fi
    _pg_log "no usable server at $(mask_url "$url"); using a private cluster under $PG_BASE"
    case $PGU_HOST in 127.0.0.1 | localhost | '[::1]') ;;
    *) _pg_log "note: $PGU_HOST is not local; the private cluster listens on 127.0.0.1" ;;
    esac
    _pg_private_start "$PGU_PORT"
    userinfo=${PGU_USERINFO:-postgres}
    url=$(_pg_url "$userinfo" 127.0.0.1 "$PG_PRIVATE_PORT" "$PGU_DB" "$PGU_QUERY")
    if [ "${userinfo%%:*}" != postgres ]; then
      "$(_pg_tool psql)" -X -w -q -v ON_ERROR_STOP=1 -v u="${userinfo%%:*}" \
        -d "$(_pg_url postgres 127.0.0.1 "$PG_PRIVATE_PORT" postgres "")" >/dev/null <<'SQL'
SELECT format('CREATE ROLE %I LOGIN SUPERUSER', :'u')
WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = :'u')
\gexec
SQL
    fi
  fi
  _pg_create_db "$url"
  printf -v "$var" '%s' "$url"
  export "${var?}"
}

# pg_cleanup: stops the private cluster if (and only if) pg_ensure started it.
pg_cleanup() {
  [ "$PG_STARTED" = 1 ] || return 0
  PG_STARTED=0
  _pg_private_stop
}

_pg_private_stop() {
  local data major bindir
  data=$(readlink -f "$PG_BASE" 2>/dev/null || printf '%s' "$PG_BASE")/data
  [ -s "$data/PG_VERSION" ] || return 0
  major=$(cat "$data/PG_VERSION")
  bindir=$(_pg_bindir "$major") || return 0
  _pg_as "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1 || return 0
  _pg_log "stopping the private cluster ($data)"
  _pg_as "$bindir/pg_ctl" -D "$data" -m fast -w -t 60 stop >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  case ${1:-start} in
  start)
    var=${2:-SERVICE_DATABASE_URL}
    pg_ensure "$var" "${3:-$PG_DEFAULT_URL}"
    printf 'export %s=%q\n' "$var" "${!var}"
    ;;
  stop) _pg_private_stop ;;
  status)
    if _pg_private_running; then
      echo "private cluster running at 127.0.0.1:$PG_PRIVATE_PORT ($PG_BASE)"
    else
      echo "private cluster not running ($PG_BASE)"
      exit 1
    fi
    ;;
  *)
    echo "usage: $0 start [VAR [DEFAULT_URL]] | stop | status" >&2
    exit 2
    ;;
  esac
fi
