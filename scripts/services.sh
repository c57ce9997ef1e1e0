#!/usr/bin/env bash
# Starts, stops and describes the real services tfgate's tests talk to, all on
# 127.0.0.1, with state (data, pid files, logs) under .tools/run/.
#
#   scripts/services.sh start [postgres] [moto] [prism]   # default: all three
#   scripts/services.sh stop  [postgres] [moto] [prism]
#   scripts/services.sh env   [postgres] [moto] [prism]   # exports of running ones
#   scripts/services.sh status
#
# `start` and `env` print only `export NAME=VALUE` lines on stdout (progress
# goes to stderr), so:   eval "$(scripts/services.sh start)"
#
#   TFGATE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:PORT/tfgate_test
#   TFGATE_TEST_MOTO_URL=http://127.0.0.1:PORT
#   TFGATE_TEST_PRISM_URL=http://127.0.0.1:PORT
#
# A service that is already running is left alone (start is idempotent). A
# cold PostgreSQL start always initdb's a fresh cluster (about 2 s), so no
# state leaks from an earlier run.
#
# Settings (environment):
#   TFGATE_PG_PORT (25432)  TFGATE_MOTO_PORT (25500)  TFGATE_PRISM_PORT (25010)
#     (below Linux's ephemeral range 32768-60999: a client socket of the tests left in
#     TIME_WAIT on a listening port's number would make that listen fail)
#   TFGATE_RUN_DIR (.tools/run)  TFGATE_TOOLS_DIR (.tools)
#   TFGATE_SERVICES_TIMEOUT  seconds to wait for Prism (180); others wait 60
# Needs: scripts/install-deps.sh run first (apt postgresql, .tools/venv, .tools/node,
# .tools/github-spec.json).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TFGATE_TOOLS_DIR:-$ROOT/.tools}"
RUN="${TFGATE_RUN_DIR:-$TOOLS/run}"
PG_PORT="${TFGATE_PG_PORT:-25432}"
MOTO_PORT="${TFGATE_MOTO_PORT:-25500}"
PRISM_PORT="${TFGATE_PRISM_PORT:-25010}"
PRISM_TIMEOUT="${TFGATE_SERVICES_TIMEOUT:-180}"
OTHER_TIMEOUT=60
PG_DB=tfgate_test
PRISM_SPEC="$TOOLS/github-spec.json"
PRISM_BIN="$TOOLS/node/node_modules/.bin/prism"
MOTO_BIN="$TOOLS/venv/bin/moto_server"
ALL=(postgres moto prism)

log() { printf '[services] %s\n' "$*" >&2; }
die() { printf '[services] ERROR: %s\n' "$*" >&2; exit 1; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
read_file() { if [ -f "$1" ]; then cat "$1"; fi; }

log_tail() {
  local file="$1"
  [ -f "$file" ] || return 0
  printf '[services] ---- last lines of %s ----\n' "$file" >&2
  # Prism prints one (very long) line per route at start: cut lines.
  tail -n 25 "$file" | cut -c1-300 >&2
  printf '[services] ----\n' >&2
}

# ---------------------------------------------------------------- postgres --
pg_bindir() {
  local dir
  dir="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$dir" ] || [ ! -x "$dir/initdb" ]; then
    die "PostgreSQL server not installed (run scripts/install-deps.sh apt)"
  fi
  echo "$dir"
}

# initdb refuses to run as root: as root, run PostgreSQL as the `postgres` user.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# The data directory must be reachable by the postgres user; a checkout under
# /root is not, so fall back to a per-checkout directory in /tmp.
pg_datadir() {
  local saved
  saved="$(read_file "$RUN/postgres.datadir")"
  if [ -n "$saved" ]; then echo "$saved"; return; fi
  if [ "$(id -u)" -ne 0 ] || runuser -u postgres -- test -x "$RUN" 2>/dev/null; then
    echo "$RUN/postgres"
  else
    echo "${TMPDIR:-/tmp}/tfgate-pg-$(printf '%s' "$RUN" | cksum | cut -d' ' -f1)"
  fi
}

postgres_pid() {
  local data
  data="$(read_file "$RUN/postgres.datadir")"
  [ -n "$data" ] && [ -f "$data/postmaster.pid" ] && head -n 1 "$data/postmaster.pid"
}

postgres_running() { pid_alive "$(postgres_pid || true)"; }

postgres_launch() {
  local bin data
  bin="$(pg_bindir)"
  if postgres_running; then
    log "postgres already running on port $(read_file "$RUN/postgres.port")"
    return 0
  fi
  ! port_busy "$PG_PORT" || die "port $PG_PORT is in use by something else (set TFGATE_PG_PORT)"
  rm -f "$RUN/postgres.datadir"
  data="$(pg_datadir)"
  rm -rf "$data"
  mkdir -p "$data"
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$data"; fi
  chmod 700 "$data"
  echo "$data" >"$RUN/postgres.datadir"
  log "postgres: initdb $data"
  if ! as_pg "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --no-locale \
    >"$RUN/postgres.initdb.log" 2>&1; then
    log_tail "$RUN/postgres.initdb.log"
    die "initdb failed"
  fi
  # Logs go into the data dir (writable by postgres); linked from $RUN.
  ln -sf "$data/postgres.log" "$RUN/postgres.log"
  log "postgres: starting on 127.0.0.1:$PG_PORT"
  if ! as_pg "$bin/pg_ctl" -D "$data" -l "$data/postgres.log" -w -t "$OTHER_TIMEOUT" \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >"$RUN/postgres.pg_ctl.log" 2>&1; then
    log_tail "$RUN/postgres.pg_ctl.log"
    log_tail "$data/postgres.log"
    die "postgres did not start"
  fi
  echo "$PG_PORT" >"$RUN/postgres.port"
}

postgres_wait() {
  local bin port i
  bin="$(pg_bindir)"
  port="$(read_file "$RUN/postgres.port")"
  for ((i = 0; i < OTHER_TIMEOUT * 5; i++)); do
    if "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then break; fi
    sleep 0.2
  done
  "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres || {
    log_tail "$RUN/postgres.log"
    die "postgres not ready on 127.0.0.1:$port after ${OTHER_TIMEOUT}s"
  }
  if ! "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'" | grep -q 1; then
    "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$PG_DB"
  fi
  postgres_pid >"$RUN/postgres.pid"
  log "postgres ready (pid $(postgres_pid))"
}

postgres_stop() {
  local data
  data="$(read_file "$RUN/postgres.datadir")"
  if postgres_running; then
    log "postgres: stopping"
    as_pg "$(pg_bindir)/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 ||
      kill "$(postgres_pid)" 2>/dev/null || true
  fi
  rm -f "$RUN/postgres.pid" "$RUN/postgres.port"
}

postgres_env() {
  echo "export TFGATE_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$(read_file "$RUN/postgres.port")/$PG_DB"
}

# ------------------------------------------------- moto and prism (daemons) --
daemon_pid() { read_file "$RUN/$1.pid"; }
daemon_running() { pid_alive "$(daemon_pid "$1")"; }

# daemon_launch NAME PORT CMD...: runs CMD in its own session (so stop can end
# its whole process group), output to $RUN/NAME.log.
daemon_launch() {
  local name="$1" port="$2"
  shift 2
  if daemon_running "$name"; then
    log "$name already running on port $(read_file "$RUN/$name.port")"
    return 0
  fi
  ! port_busy "$port" || die "port $port is in use by something else (set TFGATE_${name^^}_PORT)"
  log "$name: starting on 127.0.0.1:$port"
  setsid nohup "$@" >"$RUN/$name.log" 2>&1 </dev/null &
  echo $! >"$RUN/$name.pid"
  echo "$port" >"$RUN/$name.port"
  echo "$SECONDS" >"$RUN/$name.started"
}

# daemon_wait NAME TIMEOUT PROBE_PATH: waits until HTTP answers on PROBE_PATH.
daemon_wait() {
  local name="$1" timeout="$2" path="$3" port pid started i
  port="$(read_file "$RUN/$name.port")"
  pid="$(daemon_pid "$name")"
  started="$(read_file "$RUN/$name.started")"
  for ((i = 0; i < timeout * 4; i++)); do
    if curl -s -o /dev/null --max-time 2 "http://127.0.0.1:$port$path"; then
      log "$name ready (pid $pid${started:+, $((SECONDS - started)) s})"
      rm -f "$RUN/$name.started"
      return 0
    fi
    if ! pid_alive "$pid"; then
      log_tail "$RUN/$name.log"
      rm -f "$RUN/$name.pid" "$RUN/$name.port" "$RUN/$name.started"
      die "$name exited during start (log: $RUN/$name.log)"
    fi
    sleep 0.25
  done
  log_tail "$RUN/$name.log"
  daemon_stop "$name"
  die "$name not answering on 127.0.0.1:$port after ${timeout}s (log: $RUN/$name.log; raise TFGATE_SERVICES_TIMEOUT for prism)"
}

daemon_stop() {
  local name="$1" pid i
  pid="$(daemon_pid "$name")"
  if pid_alive "$pid"; then
    log "$name: stopping (pid $pid)"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 40; i++)); do pid_alive "$pid" || break; sleep 0.25; done
    if pid_alive "$pid"; then kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  rm -f "$RUN/$name.pid" "$RUN/$name.port" "$RUN/$name.started"
}

moto_launch() {
  [ -x "$MOTO_BIN" ] || die "moto_server missing at $MOTO_BIN (run scripts/install-deps.sh pip)"
  daemon_launch moto "$MOTO_PORT" "$MOTO_BIN" -H 127.0.0.1 -p "$MOTO_PORT"
}
moto_wait() { daemon_wait moto "$OTHER_TIMEOUT" /moto-api/; }
moto_stop() { daemon_stop moto; }
moto_running() { daemon_running moto; }
moto_env() { echo "export TFGATE_TEST_MOTO_URL=http://127.0.0.1:$(read_file "$RUN/moto.port")"; }

prism_launch() {
  [ -x "$PRISM_BIN" ] || die "prism missing at $PRISM_BIN (run scripts/install-deps.sh npm)"
  [ -f "$PRISM_SPEC" ] || die "$PRISM_SPEC missing (run scripts/install-deps.sh spec)"
  # Never --errors: GitHub's own examples break its schemas (see scripts/prism/NOTES.md).
  daemon_launch prism "$PRISM_PORT" "$PRISM_BIN" mock "$PRISM_SPEC" -h 127.0.0.1 -p "$PRISM_PORT"
}
prism_wait() { daemon_wait prism "$PRISM_TIMEOUT" /zen; }
prism_stop() { daemon_stop prism; }
prism_running() { daemon_running prism; }
prism_env() { echo "export TFGATE_TEST_PRISM_URL=http://127.0.0.1:$(read_file "$RUN/prism.port")"; }

# -------------------------------------------------------------------- main --
select_services() {
  local s
  if [ "$#" -eq 0 ]; then printf '%s\n' "${ALL[@]}"; return; fi
  for s in "$@"; do
    case "$s" in
      postgres | moto | prism) echo "$s" ;;
      pg) echo postgres ;;
      *) die "unknown service '$s' (postgres|moto|prism)" ;;
    esac
  done
}

main() {
  local cmd="${1:-}" services s
  [ "$#" -gt 0 ] && shift
  mapfile -t services < <(select_services "$@")
  mkdir -p "$RUN"
  case "$cmd" in
    start)
      # Prism is slowest (~20 s): launch it first, then the others, then wait.
      for s in prism postgres moto; do
        if [[ " ${services[*]} " == *" $s "* ]]; then "${s}_launch"; fi
      done
      for s in postgres moto prism; do
        if [[ " ${services[*]} " == *" $s "* ]]; then "${s}_wait"; fi
      done
      for s in "${services[@]}"; do "${s}_env"; done
      ;;
    stop)
      for s in "${services[@]}"; do "${s}_stop"; done
      ;;
    env)
      for s in "${services[@]}"; do
        if "${s}_running"; then "${s}_env"; else log "$s is not running"; fi
      done
      ;;
    status)
      for s in "${services[@]}"; do
        if "${s}_running"; then
          echo "$s: running on 127.0.0.1:$(read_file "$RUN/$s.port")"
        else
          echo "$s: stopped"
        fi
      done
      ;;
    *)
      echo "usage: $0 start|stop|env|status [postgres] [moto] [prism]" >&2
      exit 2
      ;;
  esac
}

main "$@"
