#!/usr/bin/env bash
# Webhook intake benchmark: tfgate against the peer Probot wraps
# (@octokit/webhooks createNodeMiddleware), same machine, same body, same wrk
# settings, one after the other (never both at once: 2 cores).
#
#   bench/webhooks/run.sh            # build tfgate (profile dist, as shipped), bench peer, bench tfgate, ratio
#   bench/webhooks/run.sh peer       # the peer only
#   bench/webhooks/run.sh tfgate     # tfgate only
#
# Needs: scripts/install-deps.sh (wrk, node packages in .tools/node).
# Settings (environment): BENCH_THREADS (2) BENCH_CONNECTIONS (32) BENCH_DURATION (10s) BENCH_WARMUP (2s)
#   BENCH_ROUNDS (1; N runs peer, tfgate, peer, tfgate … and reports each round and the median ratio)
#   PEER_PORT (25600) TFGATE_BENCH_PORT (25601) WEBHOOK_SECRET
#     (ports below Linux's ephemeral range 32768-60999: wrk's own connections end in TIME_WAIT
#     on ephemeral ports, and one on the next target's port number makes that target's listen
#     fail with "Address already in use")
#   BENCH_BODY_FILE (issue_comment created on a PR, compacted)  TFGATE_BUILD (1; 0 skips cargo build)
#   BENCH_KEEP (0; 1 keeps the work dir with both servers' logs and tfgate's database)
#   BENCH_CEILING (0; 1 also measures examples/bench_intake_ceiling in every round, between the
#     peer and tfgate: tfgate's signature check and routing on the same stack, storing nothing,
#     so the rounds show what the durable write costs. CEILING_PORT (25602))
#   TFGATE_METRICS_PORT (25603): tfgate's --metrics-addr (metrics are not on the public port)
#   TFGATE_WORKERS is passed through: 0 measures intake alone, unset = tfgate's default (2).
# Each run sends: X-GitHub-Event: issue_comment, a fixed X-Hub-Signature-256,
# Content-Type: application/json and a unique X-GitHub-Delivery per request.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/webhooks"
cd "$ROOT"

# ============================ FILLED IN BY THE LEAD ============================
# How to start tfgate. It is started with this environment added:
#   TFGATE_ADDR=127.0.0.1:$TFGATE_BENCH_PORT TFGATE_DATA_DIR=<fresh tmp dir>
#   TFGATE_WEBHOOK_SECRET=$WEBHOOK_SECRET
# plus whatever the caller exports (e.g. app id / key settings).
TFGATE_CMD="${TFGATE_CMD:-target/dist/tfgate serve}"
# Path tfgate receives webhooks on, and an HTTP path that answers once it is up
# (empty: wait for the TCP port only).
TFGATE_WEBHOOK_PATH="${TFGATE_WEBHOOK_PATH:-/webhooks}"
TFGATE_READY_PATH="${TFGATE_READY_PATH:-/healthz}"
# ==============================================================================

THREADS="${BENCH_THREADS:-2}"
ROUNDS="${BENCH_ROUNDS:-1}"
CONNECTIONS="${BENCH_CONNECTIONS:-32}"
DURATION="${BENCH_DURATION:-10s}"
WARMUP="${BENCH_WARMUP:-2s}" # 0: none. Lets Node's JIT warm up before measuring.
PEER_PORT="${PEER_PORT:-25600}"
TFGATE_BENCH_PORT="${TFGATE_BENCH_PORT:-25601}"
CEILING="${BENCH_CEILING:-0}"
CEILING_PORT="${CEILING_PORT:-25602}"
TFGATE_METRICS_PORT="${TFGATE_METRICS_PORT:-25603}"
PEER_PATH="${WEBHOOK_PATH:-/api/github/webhooks}"
export WEBHOOK_SECRET="${WEBHOOK_SECRET:-tfgate-bench-secret-0123456789}"
export WEBHOOK_EVENT=issue_comment
FIXTURE="$ROOT/tests/fixtures/webhooks/issue_comment.created.on-pr.json"

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

command -v wrk >/dev/null || die "wrk missing (scripts/install-deps.sh apt)"
[ -d "$ROOT/.tools/node/node_modules/@octokit/webhooks" ] ||
  die "@octokit/webhooks missing (scripts/install-deps.sh npm)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tfgate-bench.XXXXXX")"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  if [ "${BENCH_KEEP:-0}" = 1 ]; then log "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# The fixed body: GitHub sends compact JSON; sign the exact bytes sent.
if [ -n "${BENCH_BODY_FILE:-}" ]; then
  cp "$BENCH_BODY_FILE" "$WORK/body.json"
else
  node -e 'process.stdout.write(JSON.stringify(require(process.argv[1])))' "$FIXTURE" >"$WORK/body.json"
fi
export WEBHOOK_BODY_FILE="$WORK/body.json"
WEBHOOK_SIGNATURE="$(node "$HERE/sign.js" "$WEBHOOK_SECRET" "$WEBHOOK_BODY_FILE")"
export WEBHOOK_SIGNATURE

wait_up() { # wait_up NAME PORT PATH PID
  local name="$1" port="$2" path="$3" pid="$4" i
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$WORK/$name.log" >&2; die "$name exited"; }
    if [ -n "$path" ]; then
      curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port$path" && return 0
    elif (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return 0
    fi
    sleep 0.1
  done
  tail -n 20 "$WORK/$name.log" >&2
  die "$name not up on port $port after 30 s"
}

# One signed request by curl first: a rejected signature must fail loudly.
sanity() { # sanity NAME URL
  local code
  code="$(curl -s -o "$WORK/$1.sanity" -w '%{http_code}' -X POST "$2" \
    -H 'Content-Type: application/json' -H "X-GitHub-Event: $WEBHOOK_EVENT" \
    -H "X-GitHub-Delivery: 00000000-0000-4000-8000-sanity$(date +%s%N | tail -c 7)" \
    -H "X-Hub-Signature-256: $WEBHOOK_SIGNATURE" --data-binary "@$WEBHOOK_BODY_FILE")"
  [[ "$code" =~ ^2 ]] || die "$1 answered $code to a correctly signed request: $(head -c 300 "$WORK/$1.sanity")"
  # and a wrong signature must be refused
  code="$(curl -s -o /dev/null -w '%{http_code}' -X POST "$2" \
    -H 'Content-Type: application/json' -H "X-GitHub-Event: $WEBHOOK_EVENT" \
    -H 'X-GitHub-Delivery: 00000000-0000-4000-8000-badsignature' \
    -H "X-Hub-Signature-256: sha256=$(printf '0%.0s' {1..64})" --data-binary "@$WEBHOOK_BODY_FILE")"
  [[ "$code" =~ ^4 ]] || die "$1 answered $code to a wrongly signed request (expected 4xx)"
}

# CPU time the hypervisor gave to other guests (/proc/stat "steal"), as % of this machine's CPU
# time: on a shared host it takes from both targets, but not evenly over a run.
steal_ticks() { awk '/^cpu /{print $9; exit}' /proc/stat; }
total_ticks() { awk '/^cpu /{t=0; for (i=2; i<=NF; i++) t+=$i; print t; exit}' /proc/stat; }

# CPU time (user + system, clock ticks) a process has used so far, from /proc/PID/stat.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

RUN_ID=0
bench() { # bench NAME URL PID -> prints BENCH_RESULT line, stores it in $WORK/NAME.result
  if [ "$WARMUP" != 0 ]; then
    log "$1: warm-up ($WARMUP, not counted)"
    RUN_ID=$((RUN_ID + 1))
    WEBHOOK_RUN_ID=$RUN_ID wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$HERE/wrk-signed.lua" "$2" >/dev/null
  fi
  log "$1: wrk -t$THREADS -c$CONNECTIONS -d$DURATION --latency $2"
  RUN_ID=$((RUN_ID + 1))
  local steal0 total0 steal_pct cpu0 cpu_us
  steal0="$(steal_ticks)" total0="$(total_ticks)" cpu0="$(cpu_ticks "$3")"
  WEBHOOK_RUN_ID=$RUN_ID wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$HERE/wrk-signed.lua" "$2" \
    | tee "$WORK/$1.wrk" >&2
  steal_pct="$(awk -v s=$(($(steal_ticks) - steal0)) -v t=$(($(total_ticks) - total0)) \
    'BEGIN { printf "%.1f", (t > 0 ? 100 * s / t : 0) }')"
  # The server's own CPU per answered request (wrk's is not in it): how much work each
  # delivery costs it, whatever share of the two cores it got.
  cpu_us="$(awk -v c=$(($(cpu_ticks "$3") - cpu0)) -v hz="$(getconf CLK_TCK)" \
    -v n="$(sed -n 's/.* requests=\([0-9]*\).*/\1/p' "$WORK/$1.wrk")" \
    'BEGIN { printf "%.0f", (n > 0 ? c / hz * 1e6 / n : 0) }')"
  grep '^BENCH_RESULT' "$WORK/$1.wrk" |
    sed "s/^BENCH_RESULT/BENCH_RESULT target=$1/; s/\$/ steal_pct=$steal_pct cpu_us_per_req=$cpu_us/" \
    | tee "$WORK/$1.result"
  # Non-2xx answers make the figures meaningless: show what the target answers now and why.
  local non2xx
  non2xx="$(sed -n 's/.* non2xx=\([0-9]*\).*/\1/p' "$WORK/$1.result")"
  if [ "${non2xx:-0}" != 0 ]; then
    log "WARNING: $1 answered $non2xx non-2xx responses; one more signed request now:"
    curl -s -w ' HTTP %{http_code}\n' -X POST "$2" -H 'Content-Type: application/json' \
      -H "X-GitHub-Event: $WEBHOOK_EVENT" -H "X-GitHub-Delivery: 00000000-0000-4000-8000-after$(date +%s%N | tail -c 7)" \
      -H "X-Hub-Signature-256: $WEBHOOK_SIGNATURE" --data-binary "@$WEBHOOK_BODY_FILE" >&2 || true
    log "last lines of $1's log:"
    sed 's/\x1b\[[0-9;]*m//g' "$WORK/$1.log" | grep -iE 'error|warn' | tail -n 5 | cut -c1-400 >&2 || true
  fi
}

# measure NAME PID PORT READY_PATH URL: once the started target is up and answers signatures
# as it should, run wrk against it.
measure() {
  PIDS+=("$2")
  wait_up "$1" "$3" "$4" "$2"
  sanity "$1" "$5"
  bench "$1" "$5" "$2"
}

stop() {
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

run_peer() {
  PEER_PORT="$PEER_PORT" WEBHOOK_PATH="$PEER_PATH" node "$HERE/peer.js" >"$WORK/peer.log" 2>&1 &
  local pid=$!
  measure peer "$pid" "$PEER_PORT" "" "http://127.0.0.1:$PEER_PORT$PEER_PATH"
  stop "$pid"
  tail -n 1 "$WORK/peer.log" >&2
}

build_tfgate() {
  if [ "${TFGATE_BUILD:-1}" = 1 ]; then
    log "cargo build --profile dist (as the Dockerfile builds it; a clean build takes ~15 min on 2 cores)"
    cargo build --profile dist --quiet
    if [ "$CEILING" = 1 ]; then
      log "cargo build --profile dist --example bench_intake_ceiling"
      cargo build --profile dist --quiet --example bench_intake_ceiling
    fi
  fi
}

# The reference without the durable write (examples/bench_intake_ceiling.rs); never deployed.
run_ceiling() {
  local bin="$ROOT/target/dist/examples/bench_intake_ceiling" pid
  [ -x "$bin" ] || die "$bin missing (cargo build --profile dist --example bench_intake_ceiling)"
  TFGATE_ADDR="127.0.0.1:$CEILING_PORT" TFGATE_WEBHOOK_SECRET="$WEBHOOK_SECRET" "$bin" \
    >"$WORK/ceiling.log" 2>&1 &
  pid=$!
  measure ceiling "$pid" "$CEILING_PORT" "" "http://127.0.0.1:$CEILING_PORT/webhooks"
  stop "$pid"
}

run_tfgate() {
  rm -rf "$WORK/tfgate-data"
  mkdir -p "$WORK/tfgate-data"
  # shellcheck disable=SC2086 # TFGATE_CMD is a command line on purpose
  env TFGATE_ADDR="127.0.0.1:$TFGATE_BENCH_PORT" TFGATE_DATA_DIR="$WORK/tfgate-data" \
    TFGATE_METRICS_ADDR="127.0.0.1:$TFGATE_METRICS_PORT" TFGATE_WEBHOOK_SECRET="$WEBHOOK_SECRET" $TFGATE_CMD >"$WORK/tfgate.log" 2>&1 &
  local pid=$!
  measure tfgate "$pid" "$TFGATE_BENCH_PORT" "$TFGATE_READY_PATH" \
    "http://127.0.0.1:$TFGATE_BENCH_PORT$TFGATE_WEBHOOK_PATH"
  # Every request carried a new delivery id: all must have been enqueued, none a duplicate
  # (a duplicate is answered 200 too, and would make the figures meaningless).
  curl -s "http://127.0.0.1:$TFGATE_METRICS_PORT/metrics" | awk -v ev="$WEBHOOK_EVENT" '
    $1 == "tfgate_webhook_deliveries_total{event=\"" ev "\",outcome=\"enqueued\"}" { e = $2 }
    $1 == "tfgate_webhook_deliveries_total{event=\"" ev "\",outcome=\"duplicate\"}" { d = $2 }
    END { printf "tfgate: %d deliveries enqueued, %d duplicates\n", e, d; exit (d > 0 || e == 0) }' >&2 ||
    die "tfgate answered duplicates (or enqueued nothing): delivery ids repeated?"
  stop "$pid"
}

field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$WORK/$1.result"; }

summary() {
  local t
  echo
  printf '%-8s %10s %9s %9s %8s %8s %8s %8s\n' target 'req/s' 'p50 ms' 'p99 ms' non2xx errors 'steal %' 'CPU µs'
  for t in "$@"; do
    printf '%-8s %10s %9s %9s %8s %8s %8s %8s\n' "$t" "$(field "$t" rps)" "$(field "$t" p50_ms)" \
      "$(field "$t" p99_ms)" "$(field "$t" non2xx)" "$(field "$t" socket_errors)" \
      "$(field "$t" steal_pct)" "$(field "$t" cpu_us_per_req)"
  done
  if [ "$#" -ge 2 ]; then
    local cr=""
    [ "$CEILING" != 1 ] || cr="$(field ceiling rps)"
    awk -v tr="$(field tfgate rps)" -v pr="$(field peer rps)" -v cr="$cr" \
      -v tp="$(field tfgate p99_ms)" -v pp="$(field peer p99_ms)" \
      -v tc="$(field tfgate cpu_us_per_req)" -v pc="$(field peer cpu_us_per_req)" 'BEGIN {
        printf "BENCH_RATIO rps_tfgate_over_peer=%.2f p99_tfgate_over_peer=%.2f cpu_peer_over_tfgate=%.2f",
          tr / pr, tp / pp, (tc > 0 ? pc / tc : 0)
        if (cr != "") printf " rps_ceiling_over_peer=%.2f rps_tfgate_over_ceiling=%.2f", cr / pr, tr / cr
        printf "\n" }' | tee -a "$WORK/ratios"
  fi
}

# Rounds: the host's speed drifts by minutes, so one peer run and one tfgate run far apart can
# say more about the host than about either. Each round runs both back to back; the median of
# the rounds' ratios is the figure to quote.
rounds() {
  local r
  build_tfgate
  for ((r = 1; r <= ROUNDS; r++)); do
    [ "$ROUNDS" = 1 ] || log "round $r of $ROUNDS"
    run_peer
    if [ "$CEILING" = 1 ]; then
      run_ceiling
      run_tfgate
      summary peer ceiling tfgate
    else
      run_tfgate
      summary peer tfgate
    fi
  done
  if [ "$ROUNDS" -gt 1 ]; then
    median rps_tfgate_over_peer
    if [ "$CEILING" = 1 ]; then
      median rps_ceiling_over_peer
      median rps_tfgate_over_ceiling
    fi
  fi
}

# median FIELD: the median, min and max of FIELD over the rounds' BENCH_RATIO lines.
median() {
  sed -n "s/.* $1=\([0-9.]*\).*/\1/p" "$WORK/ratios" | sort -n | awk -v f="$1" '{ r[NR] = $1 } END {
      printf "BENCH_MEDIAN rounds=%d %s=%.2f min=%.2f max=%.2f\n",
        NR, f, (NR % 2 ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2), r[1], r[NR] }'
}

case "${1:-all}" in
  peer) run_peer; summary peer ;;
  tfgate) build_tfgate; run_tfgate; summary tfgate ;;
  all) rounds ;;
  *) die "usage: $0 [all|peer|tfgate]" ;;
esac
