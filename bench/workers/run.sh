#!/usr/bin/env bash
# Workers: runs per second and claim-to-start latency for 1, 2 and 4 `tfgate worker`
# processes (one worker each) beside `tfgate serve --workers 0`, on one PostgreSQL database,
# with the fake GitHub, STS and S3 on moto and Terraform 1.0.3 in bubblewrap (the set-up of
# tests/topology.rs; the benchmark is the ignored test tests/bench_workers.rs).
#
#   bash bench/workers/run.sh
#
# Per worker count: BENCH_PLANS `/plan` comments at once (one root each, four roots per PR):
# runs/s = plans / (first delivery -> last plan comment); then BENCH_IDLE_PLANS one at a time.
# Claim-to-start latency = a run job's created_at -> its run's created_at (database times):
# under the burst mostly time queued, idle the pick-up.
# Settings: BENCH_WORKERS ("1 2 4") BENCH_PLANS (24) BENCH_IDLE_PLANS (5)
# BENCH_SANDBOX (bwrap; `none` for Terraform's CPU per run, which bubblewrap hides). Also
# prints the bound per N: `BENCH_RESULT bench=workers-bound …` (CPU per run of tfgate and of
# Terraform, claims, job times, GitHub calls and PostgreSQL writes per run; bench/README.md).
# Needs: scripts/install-deps.sh (PostgreSQL, moto in .tools/venv, bubblewrap),
# scripts/install-terraform.sh, scripts/build-test-provider.sh. PostgreSQL and moto are
# started with scripts/services.sh (left running, as the test suite does).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"

[ -x .tools/bin/terraform ] || die "Terraform missing (bash scripts/install-terraform.sh)"
[ -f .tools/fake-provider.tfrc ] || die "test provider missing (bash scripts/build-test-provider.sh)"
need bwrap apt

eval "$(bash scripts/services.sh start postgres moto)"
[ -n "${TFGATE_TEST_MOTO_URL:-}" ] || die "moto did not start (scripts/services.sh start moto)"
[ -n "${TFGATE_TEST_DATABASE_URL:-}" ] || die "PostgreSQL did not start (scripts/services.sh start postgres)"
export TFGATE_TEST_MOTO_URL TFGATE_TEST_DATABASE_URL
export BENCH_WORKERS="${BENCH_WORKERS:-1 2 4}" BENCH_SANDBOX="${BENCH_SANDBOX:-bwrap}" TFGATE_REQUIRE_TOOLS=1 TFGATE_REQUIRE_POSTGRES=1

machine_line
log "cargo test --release --test bench_workers -- --ignored --nocapture (workers: $BENCH_WORKERS)"
cargo test --release --quiet --test bench_workers -- --ignored --nocapture --test-threads 1 \
  | grep '^BENCH_RESULT'
machine_line
