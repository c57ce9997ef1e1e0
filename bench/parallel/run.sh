#!/usr/bin/env bash
# Parallel plans (issue 41): a PR touching 8 independent roots, each plan waiting about 1 s on
# the test provider (`plan_delay_ms`, no CPU), planned by four in-process workers on
# PostgreSQL with the fake GitHub, STS and S3 on moto, Terraform 1.0.3 in bubblewrap. In one
# run: `parallel_plans: 4` against `parallel_plans: 1` (time from the `/plan` delivery to the
# final comment), and the time to the first root's result against a single-root plan. The
# benchmark is the ignored test tests/bench_parallel.rs (release).
#
#   bash bench/parallel/run.sh
#
# Settings: BENCH_ROOTS (8) BENCH_PLAN_DELAY_MS (1000).
# Needs: scripts/install-deps.sh, scripts/install-terraform.sh, scripts/build-test-provider.sh.
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
export TFGATE_TEST_MOTO_URL TFGATE_TEST_DATABASE_URL TFGATE_REQUIRE_TOOLS=1 TFGATE_REQUIRE_POSTGRES=1

machine_line
log "cargo test --release --test bench_parallel -- --ignored --nocapture"
cargo test --release --quiet --test bench_parallel -- --ignored --nocapture --test-threads 1 \
  | grep '^BENCH_RESULT'
machine_line
