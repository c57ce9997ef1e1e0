#!/usr/bin/env bash
# Plan policy benchmark (issue 42): `tfgate policy test SET PLAN.json` of the example sets of
# policies/plan/ (release build) on a generated 10,000-resource plan JSON
# (bench/policy/gen-plan.py: security groups, rules, S3 buckets with their public access
# blocks, tagged resources; ~19 MB), against `jq . PLAN.json > /dev/null` on the same file, one
# after the other in the same run.
#
# Two figures per set: the whole command (process start, loading and compiling the policy
# directory, reading the plan, evaluating), and the evaluation alone as the binary reports it
# (`--timing`: the plan parsed into the interpreter + the rules), median of BENCH_RUNS.
#
#   bash bench/policy/run.sh
#
# Target (issue 42): the evaluation within 1 s in release.
# Settings: BENCH_RESOURCES (10000) BENCH_RUNS (5) BENCH_DATA_DIR (target/bench-data)
#   TFGATE_BUILD (1; 0 skips cargo build) BENCH_NO_HYPERFINE (0; 1 uses /usr/bin/time only)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/policy"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

RESOURCES="${BENCH_RESOURCES:-10000}"
SETS=(no-public-exposure required-tags)
need python3
need jq apt
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tfgate-bench-policy.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

build_release
mkdir -p "$BENCH_DATA_DIR"
PLAN="$BENCH_DATA_DIR/policy-plan-${RESOURCES}.json"
if [ ! -s "$PLAN" ] || [ "$HERE/gen-plan.py" -nt "$PLAN" ]; then
  log "generating $PLAN"
  python3 "$HERE/gen-plan.py" --resources "$RESOURCES" "$PLAN.tmp" 2>"$PLAN.expected"
  mv "$PLAN.tmp" "$PLAN"
fi
SIZE="$(stat -c %s "$PLAN")"
log "plan: $PLAN ($SIZE bytes; generator says: $(cat "$PLAN.expected"))"

# Sanity: each set evaluates without an error (a timeout would fail it closed) and finds the
# planted problems.
for set in "${SETS[@]}"; do
  code=0
  "$TFGATE_BIN" --policy-dir "$ROOT/policies" policy test "$set" "$PLAN" >"$WORK/$set.out" || code=$?
  grep -q '^ERROR' "$WORK/$set.out" && die "$set: $(grep '^ERROR' "$WORK/$set.out")"
  log "sanity: $set exit $code: $(tail -n 1 "$WORK/$set.out")"
done

# The evaluation alone, as the binary measures it (--timing), median of BENCH_RUNS.
eval_median() {
  local set="$1" i
  : >"$WORK/$set.eval"
  for ((i = 0; i < BENCH_RUNS; i++)); do
    { "$TFGATE_BIN" --policy-dir "$ROOT/policies" policy test "$set" "$PLAN" --timing 2>&1 >/dev/null || true; } \
      | sed -n 's/.* evaluated (parse into the interpreter + rules) in \([0-9.]*\) ms/\1/p' \
        >>"$WORK/$set.eval"
  done
  awk '{ print $1 / 1000 }' "$WORK/$set.eval" | median
}

# Of which: parsing the plan into the interpreter (measured apart by --timing), median.
parse_median() {
  local set="$1" i
  : >"$WORK/$set.parse"
  for ((i = 0; i < BENCH_RUNS; i++)); do
    { "$TFGATE_BIN" --policy-dir "$ROOT/policies" policy test "$set" "$PLAN" --timing 2>&1 >/dev/null || true; } \
      | sed -n 's/.* into the interpreter, measured apart: \([0-9.]*\) ms/\1/p' >>"$WORK/$set.parse"
  done
  awk '{ print $1 / 1000 }' "$WORK/$set.parse" | median
}

declare -A whole evalonly parse
for set in "${SETS[@]}"; do
  log "timing tfgate policy test $set (median of $BENCH_RUNS)"
  whole[$set]="$(time_median "$set" "'$TFGATE_BIN' --policy-dir '$ROOT/policies' policy test $set '$PLAN' > /dev/null || true")"
  evalonly[$set]="$(eval_median "$set")"
  parse[$set]="$(parse_median "$set")"
done
log "timing jq . (median of $BENCH_RUNS)"
t_jq="$(time_median jq "jq . '$PLAN' > /dev/null")"

echo
machine_line
printf '%-20s %10s %10s %14s %10s\n' "command" "whole s" "eval s" "of which parse" "whole/jq"
for set in "${SETS[@]}"; do
  awk -v n="$set" -v w="${whole[$set]}" -v e="${evalonly[$set]}" -v p="${parse[$set]}" -v j="$t_jq" \
    'BEGIN { printf "%-20s %10.3f %10.3f %14.3f %10.2f\n", n, w, e, p, w / j }'
done
awk -v j="$t_jq" 'BEGIN { printf "%-20s %10.3f %10s %14s %10s\n", "jq .", j, "-", "-", "1.00" }'
for set in "${SETS[@]}"; do
  awk -v n="$set" -v w="${whole[$set]}" -v e="${evalonly[$set]}" -v p="${parse[$set]}" -v j="$t_jq" -v f="$SIZE" -v r="$RESOURCES" \
    'BEGIN { printf "BENCH_RESULT bench=policy set=%s resources=%d file_bytes=%d whole_s=%.3f eval_s=%.3f parse_s=%.3f jq_s=%.3f\n", n, r, f, w, e, p, j
             printf "BENCH_RATIO set=%s whole_over_jq=%.2f eval_over_jq=%.2f target_eval_s<=1\n", n, w / j, e / j }'
done
