#!/usr/bin/env bash
# Plan -> comment benchmark: `tfgate render plan FILE` on a generated 10,000-resource plan JSON
# (bench/render/gen-plan.py, ~64 MB, format 1.2) against `jq . FILE` on the same file, same
# machine, one after the other.
#
#   bash bench/render/run.sh
#
# Targets (issue): time <= 1.5x jq's; peak RSS <= 2x the file size.
# Settings: BENCH_RESOURCES (10000) BENCH_RUNS (5) BENCH_DATA_DIR (target/bench-data)
#   TFGATE_BUILD (1; 0 skips cargo build) BENCH_NO_HYPERFINE (0; 1 uses /usr/bin/time only)
# Needs: jq (scripts/install-deps.sh apt), python3, /usr/bin/time; hyperfine if installed
# (optional: `apt-get install -y hyperfine`; without it, medians of /usr/bin/time runs).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/render"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

RESOURCES="${BENCH_RESOURCES:-10000}"
need jq apt
need python3
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tfgate-bench-render.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

build_release
mkdir -p "$BENCH_DATA_DIR"
PLAN="$BENCH_DATA_DIR/plan-$RESOURCES.json"
if [ ! -s "$PLAN" ] || [ "$HERE/gen-plan.py" -nt "$PLAN" ]; then
  log "generating $PLAN"
  python3 "$HERE/gen-plan.py" --resources "$RESOURCES" "$PLAN.tmp"
  mv "$PLAN.tmp" "$PLAN"
fi
SIZE="$(stat -c %s "$PLAN")"
log "plan: $PLAN ($SIZE bytes, $RESOURCES resource instances)"

# Sanity: both succeed on the file, and tfgate's comment has the plan's counts.
jq -e '.resource_changes | length' "$PLAN" >/dev/null || die "jq cannot read $PLAN"
"$TFGATE_BIN" render plan "$PLAN" >"$WORK/comment.md" || die "tfgate render plan failed"
want_add="$(jq '[.resource_changes[] | select(.change.actions == ["create"])] | length' "$PLAN")"
grep -q "| $want_add |" "$WORK/comment.md" ||
  die "the rendered comment lacks the plan's $want_add creates: $(head -c 600 "$WORK/comment.md")"
log "tfgate comment: $(wc -c <"$WORK/comment.md") bytes; summary row: $(grep -m1 '^| `' "$WORK/comment.md")"

log "timing (median of $BENCH_RUNS)"
t_tfgate="$(time_median tfgate "'$TFGATE_BIN' render plan '$PLAN' > /dev/null")"
t_jq="$(time_median jq "jq . '$PLAN' > /dev/null")"
log "peak RSS (median of 3, /usr/bin/time)"
rss_tfgate="$(rss_median tfgate "'$TFGATE_BIN' render plan '$PLAN' > /dev/null")"
rss_jq="$(rss_median jq "jq . '$PLAN' > /dev/null")"

echo
printf '%-8s %10s %14s %16s\n' tool 'median s' 'peak RSS KiB' 'RSS/file size'
for t in tfgate jq; do
  tv="t_$t" rv="rss_$t"
  awk -v n="$t" -v s="${!tv}" -v r="${!rv}" -v f="$SIZE" \
    'BEGIN { printf "%-8s %10.3f %14d %16.2f\n", n, s, r, r * 1024 / f }'
done
machine_line
awk -v tt="$t_tfgate" -v tj="$t_jq" -v rt="$rss_tfgate" -v rj="$rss_jq" -v f="$SIZE" -v n="$RESOURCES" 'BEGIN {
  printf "BENCH_RESULT bench=render resources=%d file_bytes=%d tfgate_s=%.3f jq_s=%.3f tfgate_rss_kib=%d jq_rss_kib=%d\n", n, f, tt, tj, rt, rj
  printf "BENCH_RATIO time_tfgate_over_jq=%.2f rss_tfgate_over_file=%.2f target_time<=1.5 target_rss<=2.0\n", tt / tj, rt * 1024 / f }'
