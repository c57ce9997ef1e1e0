#!/usr/bin/env bash
# Coverage-guided fuzzing of tfgate's parsers and redactor (libFuzzer through cargo-fuzz, on
# the stable toolchain: no sanitizer, coverage instrumentation only). Not run by CI.
#
#   scripts/fuzz.sh list                 the targets
#   scripts/fuzz.sh TARGET SECONDS [ARGS] run TARGET for SECONDS (ARGS go to libFuzzer)
#   scripts/fuzz.sh TARGET 0 FILE...      replay inputs (crash artifacts) once each
#
# Installs cargo-fuzz into .tools/fuzz (once), builds fuzz/ (its own crate and target dir,
# fuzz/target), seeds fuzz/corpus/TARGET from tests/fixtures, policies/ and the docs, runs at
# the lowest priority and prints inputs executed, seconds and crashes. A crash input is kept in
# fuzz/artifacts/TARGET/; replay it with `scripts/fuzz.sh TARGET 0 fuzz/artifacts/TARGET/crash-…`
# (SECONDS 0 runs the target once on each given file).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CARGO_FUZZ_VERSION=0.13.2
declare -A ABOUT=(
  [comment_parser]="comment body -> commands: validated values, safe replies"
  [webhook_route]="event name + JSON body -> jobs: errors for bad input, payloads read back"
  [plan_json]="show -json plan -> plan summary and attribute diffs"
  [apply_stream]="apply -json stream -> per-resource outcomes, streaming = whole-stream"
  [redact]="planted ARNs, accounts, IPs, keys, tokens, known secrets never survive redaction"
  [policy_load]="policy YAML -> validated policy or located problems"
)
# Longest input per target (bytes): room for the seeds, small enough to stay fast.
declare -A MAX_LEN=(
  [comment_parser]=4096 [webhook_route]=32768 [plan_json]=16384
  [apply_stream]=8192 [redact]=4160 [policy_load]=8192
)
TARGETS=(comment_parser webhook_route plan_json apply_stream redact policy_load)

usage() {
  echo "usage: scripts/fuzz.sh list | scripts/fuzz.sh TARGET SECONDS [libFuzzer args]" >&2
  exit 2
}

if [[ "${1:-}" == list ]]; then
  for t in "${TARGETS[@]}"; do printf '%-15s %s\n' "$t" "${ABOUT[$t]}"; done
  exit 0
fi
[[ $# -ge 2 ]] || usage
TARGET="$1"
SECONDS_TO_RUN="$2"
shift 2
[[ -n "${ABOUT[$TARGET]:-}" ]] || { echo "unknown target: $TARGET" >&2; usage; }
[[ "$SECONDS_TO_RUN" =~ ^[0-9]+$ ]] || usage

CARGO_FUZZ="$ROOT/.tools/fuzz/bin/cargo-fuzz"
if [[ ! -x "$CARGO_FUZZ" ]] || ! "$CARGO_FUZZ" --version | grep -q "$CARGO_FUZZ_VERSION"; then
  echo "== installing cargo-fuzz $CARGO_FUZZ_VERSION into .tools/fuzz" >&2
  cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --root "$ROOT/.tools/fuzz"
fi
export CARGO_TARGET_DIR="$ROOT/fuzz/target"

# Seeds: the real inputs each parser sees, from the repository's fixtures.
CORPUS="$ROOT/fuzz/corpus/$TARGET"
mkdir -p "$CORPUS" "$ROOT/fuzz/artifacts/$TARGET"
seed() { cp -n "$@" "$CORPUS/" 2>/dev/null || true; }
# The redact target reads a 64-byte header (what to plant where) before the text.
redact_seed() {
  local index="$1" source="$2" out="$CORPUS/seed-$1" k header=""
  [[ -e "$out" ]] && return
  for ((k = 0; k < 64; k++)); do header+=$(printf '\\x%02x' $(((index * 53 + k * 29 + 7) % 256))); done
  { printf "$header"; head -c 4096 "$source"; } >"$out"
}
case "$TARGET" in
  comment_parser)
    i=0
    for f in tests/fixtures/webhooks/issue_comment.*.json; do
      jq -r '.comment.body // empty' "$f" >"$CORPUS/seed-webhook-$((i++))"
    done
    grep -ohE '`(/|tfgate |@[a-z-]+ )(plan|apply|unlock|cancel|help|inputs)[^`]*`' README.md docs/*.md |
      tr -d '`' >"$CORPUS/seed-docs"
    ;;
  webhook_route)
    for f in tests/fixtures/webhooks/*.json; do
      name="$(basename "$f")"
      { echo "${name%%.*}"; cat "$f"; } >"$CORPUS/seed-$name"
    done
    ;;
  plan_json) seed tests/fixtures/tf-json/*.json tests/fixtures/tf-real/plan.json ;;
  apply_stream) seed tests/fixtures/tf-json/*.log tests/fixtures/tf-json/*.jsonlog tests/fixtures/tf-real/*.jsonl ;;
  redact)
    i=0
    lines="$(mktemp -d)"
    split -l 1 -a 4 tests/fixtures/aws-errors/aws-errors-dev.jsonl "$lines/line-"
    for f in "$lines"/line-* tests/fixtures/tf-real/*.jsonl tests/fixtures/tf-json/*.log; do
      redact_seed "$((i++))" "$f"
    done
    rm -rf "$lines"
    ;;
  policy_load)
    seed policies/*.yaml
    awk '/^```yaml/{n++; keep=1; next} /^```/{keep=0} keep{print > (dir "/seed-docs-" n)}' \
      dir="$CORPUS" docs/policy.md
    ;;
esac

echo "== building the fuzz targets (fuzz/target)" >&2
nice -n 19 "$CARGO_FUZZ" build --fuzz-dir fuzz --sanitizer none -O >&2
if [[ "$SECONDS_TO_RUN" == 0 ]]; then
  # Replay: run the target once on each given input (a crash artifact, a corpus file).
  [[ $# -ge 1 ]] || usage
  exec "$CARGO_FUZZ" run --fuzz-dir fuzz --sanitizer none -O "$TARGET" "$@"
fi

LOG="$ROOT/fuzz/target/fuzz-$TARGET.log"
before="$(ls "$ROOT/fuzz/artifacts/$TARGET" | wc -l)"
echo "== fuzzing $TARGET for ${SECONDS_TO_RUN}s (log: $LOG)" >&2
started="$(date +%s)"
status=0
nice -n 19 "$CARGO_FUZZ" run --fuzz-dir fuzz --sanitizer none -O "$TARGET" "$CORPUS" -- \
  -max_total_time="$SECONDS_TO_RUN" -max_len="${MAX_LEN[$TARGET]}" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 "$@" >"$LOG" 2>&1 || status=$?
took="$(($(date +%s) - started))"

inputs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)"
crashes="$(($(ls "$ROOT/fuzz/artifacts/$TARGET" | wc -l) - before))"
echo "target=$TARGET inputs=${inputs:-?} seconds=$took crashes=$crashes corpus=$(ls "$CORPUS" | wc -l)"
if [[ "$status" != 0 ]]; then
  grep -E "panicked at|^SUMMARY|Test unit written to|ERROR: libFuzzer" "$LOG" | head -20 >&2 || true
  exit "$status"
fi
