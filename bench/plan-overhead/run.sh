#!/usr/bin/env bash
# Bot overhead per plan: time from a signed `/plan` comment delivery to the plan comment posted
# (tfgate in one process: router, SQLite queue, one embedded worker, fake GitHub over HTTP,
# STS on moto, Terraform 1.0.3 in bubblewrap) minus the time of `terraform init && terraform
# plan` run directly on a fresh copy of the same root with the same CLI config and S3 backend
# on moto. Both alternate, N times each, after one warm-up of each. See
# tests/bench_plan_overhead.rs (an ignored test sharing the scenario tests' fake GitHub).
#
#   bash bench/plan-overhead/run.sh
#
# Target (issue): overhead <= 300 ms median.
# Settings: BENCH_ITERATIONS (10) BENCH_RESOURCES (5) BENCH_SANDBOX (bwrap | none)
# Needs: scripts/install-deps.sh (moto in .tools/venv, bubblewrap), scripts/install-terraform.sh,
# scripts/build-test-provider.sh. moto is started with scripts/services.sh (left running, as
# the test suite does; `bash scripts/services.sh stop moto` stops it).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"

[ -x .tools/bin/terraform ] || die "Terraform missing (bash scripts/install-terraform.sh)"
[ -f .tools/fake-provider.tfrc ] || die "test provider missing (bash scripts/build-test-provider.sh)"
if [ "${BENCH_SANDBOX:-bwrap}" = bwrap ]; then need bwrap apt; fi

eval "$(bash scripts/services.sh start moto)"
[ -n "${TFGATE_TEST_MOTO_URL:-}" ] || die "moto did not start (scripts/services.sh start moto)"
export TFGATE_TEST_MOTO_URL
log "moto: $TFGATE_TEST_MOTO_URL"

log "cargo test --release --test bench_plan_overhead -- --ignored --nocapture"
RUST_LOG="${RUST_LOG:-off}" cargo test --release --quiet --test bench_plan_overhead -- \
  --ignored --nocapture --test-threads 1
machine_line
