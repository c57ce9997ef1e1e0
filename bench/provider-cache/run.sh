#!/usr/bin/env bash
# `terraform init` cold vs warm provider cache, and tfgate's own overhead per plan, in one run:
# the ignored test tests/bench_provider_cache.rs (a test provider padded to BENCH_PROVIDER_MB,
# 100 by default, from a packed mirror; tfrun::plan in bubblewrap), then bench/plan-overhead.
#
#   bash bench/provider-cache/run.sh
#
# Target (issue 26): warm `init` <= 1.5 s.
# Settings: BENCH_ITERATIONS (5) BENCH_PROVIDER_MB (100); plan-overhead's own settings.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
cd "$ROOT"

[ -x .tools/bin/terraform ] || die "Terraform missing (bash scripts/install-terraform.sh)"
[ -d .tools/provider-mirror ] || die "test provider missing (bash scripts/build-test-provider.sh)"
need bwrap apt

log "cargo test --release --test bench_provider_cache -- --ignored --nocapture"
RUST_LOG="${RUST_LOG:-off}" cargo test --release --quiet --test bench_provider_cache -- \
  --ignored --nocapture --test-threads 1
BENCH_ITERATIONS="${BENCH_OVERHEAD_ITERATIONS:-5}" bash bench/plan-overhead/run.sh
