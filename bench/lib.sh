# shellcheck shell=bash
# Shared helpers for bench/*/run.sh (sourced, not run).
#
#   ROOT              the repository root (set by the sourcing script before sourcing)
#   BENCH_RUNS        timed runs per command (5)
#   BENCH_DATA_DIR    where generated inputs are kept between runs (target/bench-data)
#   TFGATE_BUILD      1 (default): cargo build --release first; 0: use target/release/tfgate as is
#   TFGATE_BIN        the binary to measure (target/release/tfgate)

BENCH_RUNS="${BENCH_RUNS:-5}"
BENCH_DATA_DIR="${BENCH_DATA_DIR:-$ROOT/target/bench-data}"
TFGATE_BIN="${TFGATE_BIN:-$ROOT/target/release/tfgate}"

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

# Build the release binary unless TFGATE_BUILD=0.
build_release() {
  if [ "${TFGATE_BUILD:-1}" = 1 ]; then
    log "cargo build --release --bin tfgate"
    (cd "$ROOT" && cargo build --release --quiet --bin tfgate)
  fi
  [ -x "$TFGATE_BIN" ] || die "$TFGATE_BIN missing (cargo build --release)"
}

# One line of context for the figures: the machine's load when they were taken.
machine_line() {
  printf 'BENCH_MACHINE cpus=%s load1=%s uptime="%s"\n' "$(nproc)" \
    "$(cut -d' ' -f1 /proc/loadavg)" "$(uptime | sed 's/^ *//')"
}

median() { # median < numbers (one per line)
  sort -g | awk '{ a[NR] = $1 } END {
    if (NR == 0) { print "nan"; exit }
    if (NR % 2) print a[(NR + 1) / 2]; else printf "%.6g\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# time_median NAME 'shell command'  -> prints the median wall time in seconds.
# hyperfine when installed (1 warm-up run, BENCH_RUNS runs, shell start-up subtracted);
# otherwise BENCH_RUNS runs under /usr/bin/time. Output of the command is discarded by the
# command itself (write `> /dev/null` in it).
time_median() {
  local name="$1" cmd="$2" out="$WORK/$1.times"
  if command -v hyperfine >/dev/null && [ "${BENCH_NO_HYPERFINE:-0}" != 1 ]; then
    hyperfine --style basic --warmup 1 --runs "$BENCH_RUNS" --export-json "$WORK/$name.hyperfine.json" \
      -n "$name" "$cmd" >&2
    jq -r '.results[0].median' "$WORK/$name.hyperfine.json"
  else
    : >"$out"
    local i
    for ((i = 0; i < BENCH_RUNS; i++)); do
      /usr/bin/time -f '%e' -o "$WORK/$name.one" bash -c "$cmd"
      cat "$WORK/$name.one" >>"$out"
    done
    median <"$out"
  fi
}

# rss_median NAME 'command...' (no shell; stdin/stdout given by the caller's redirections)
# -> median peak resident set size in KiB over 3 runs (/usr/bin/time -v).
rss_median() {
  local name="$1" cmd="$2" i
  : >"$WORK/$name.rss"
  for ((i = 0; i < 3; i++)); do
    /usr/bin/time -f '%M' -o "$WORK/$name.rss.one" bash -c "$cmd"
    tail -n 1 "$WORK/$name.rss.one" >>"$WORK/$name.rss"
  done
  median <"$WORK/$name.rss"
}

need() { command -v "$1" >/dev/null || die "$1 missing (bash scripts/install-deps.sh${2:+ $2})"; }
