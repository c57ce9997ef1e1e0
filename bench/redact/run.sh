#!/usr/bin/env bash
# Redaction benchmark: `tfgate redact < LOG > /dev/null` on a generated ~100 MB
# `terraform apply -json` log (bench/redact/gen-apply-log.py) against
# `sed -E -f bench/redact/patterns.sed LOG > /dev/null` (ARN, access key id, email, UUID,
# IPv4/CIDR, 12-digit account id), same machine, one after the other. Process start-up and
# reading the file are included for both.
#
#   bash bench/redact/run.sh
#
# Targets (issue): tfgate >= 200 MB/s, and >= 10x sed -E's throughput.
# Settings: BENCH_LOG_MB (100) BENCH_RUNS (5, tfgate) SED_RUNS (3: sed takes ~25 s a run)
#   BENCH_DATA_DIR (target/bench-data) TFGATE_BUILD (1; 0 skips cargo build)
#   BENCH_NO_HYPERFINE (0; 1 uses /usr/bin/time only)
# MB here is 10^6 bytes.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/bench/redact"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

LOG_MB="${BENCH_LOG_MB:-100}"
SED_RUNS="${SED_RUNS:-3}"
need python3
need sed
need jq apt
[ -x /usr/bin/time ] || die "/usr/bin/time missing (apt-get install time)"
sed --version 2>/dev/null | grep -q GNU || die "GNU sed needed (patterns.sed uses \\b)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tfgate-bench-redact.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

build_release
mkdir -p "$BENCH_DATA_DIR"
LOG="$BENCH_DATA_DIR/apply-${LOG_MB}mb.jsonl"
if [ ! -s "$LOG" ] || [ ! -s "$LOG.planted" ] || [ "$HERE/gen-apply-log.py" -nt "$LOG" ]; then
  log "generating $LOG"
  python3 "$HERE/gen-apply-log.py" --mb "$LOG_MB" "$LOG.tmp"
  mv "$LOG.tmp.planted" "$LOG.planted"
  mv "$LOG.tmp" "$LOG"
fi
SIZE="$(stat -c %s "$LOG")"
log "log: $LOG ($SIZE bytes, $(wc -l <"$LOG") lines)"

# Sanity: both outputs keep the line count and lose every planted value (account ids, emails,
# access key ids, IPs) that is in the input.
"$TFGATE_BIN" redact <"$LOG" >"$WORK/tfgate.out" || die "tfgate redact failed"
sed -E -f "$HERE/patterns.sed" "$LOG" >"$WORK/sed.out"
lines="$(wc -l <"$LOG")"
for t in tfgate sed; do
  [ "$(wc -l <"$WORK/$t.out")" = "$lines" ] || die "$t changed the number of lines"
  left="$(grep -c -F -f "$LOG.planted" "$WORK/$t.out" || true)"
  [ "$left" = 0 ] || die "$t left $left lines with planted values: $(grep -m1 -F -f "$LOG.planted" "$WORK/$t.out" | head -c 400)"
done
in_lines="$(grep -c -F -f "$LOG.planted" "$LOG")"
log "sanity: $in_lines input lines hold planted values; none survive in either output"
rm -f "$WORK/tfgate.out" "$WORK/sed.out"

log "timing tfgate (median of $BENCH_RUNS)"
t_tfgate="$(time_median tfgate "'$TFGATE_BIN' redact < '$LOG' > /dev/null")"
log "timing sed -E (median of $SED_RUNS)"
t_sed="$(BENCH_RUNS="$SED_RUNS" time_median sed "sed -E -f '$HERE/patterns.sed' '$LOG' > /dev/null")"

echo
machine_line
awk -v tt="$t_tfgate" -v ts="$t_sed" -v f="$SIZE" 'BEGIN {
  mt = f / 1e6 / tt; ms = f / 1e6 / ts
  printf "%-8s %10s %10s\n", "tool", "median s", "MB/s"
  printf "%-8s %10.3f %10.1f\n%-8s %10.3f %10.1f\n", "tfgate", tt, mt, "sed -E", ts, ms
  printf "BENCH_RESULT bench=redact file_bytes=%d tfgate_s=%.3f sed_s=%.3f tfgate_mb_s=%.1f sed_mb_s=%.1f\n", f, tt, ts, mt, ms
  printf "BENCH_RATIO throughput_tfgate_over_sed=%.2f tfgate_mb_s=%.1f target_ratio>=10 target_mb_s>=200\n", (ms > 0 ? mt / ms : 0), mt }'
