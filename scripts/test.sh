#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine or an already prepared one:
# installs what the tests need (apt, pip, npm, Terraform 1.0.3, the test provider), starts
# PostgreSQL, moto and Prism on 127.0.0.1, runs fmt, clippy and every test on SQLite and
# PostgreSQL, then stops the services.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

step() { printf '\n== %s\n' "$*"; }
disk() { df -h --output=avail,used,size "$ROOT" | sed 's/^/   /'; }

# One build from scratch: incremental compilation data would only take disk (GBs).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
SERVICES_STARTED=0
at_exit() {
  step "disk at exit"
  disk
  if [[ "$SERVICES_STARTED" == 1 ]]; then bash scripts/services.sh stop >/dev/null 2>&1 || true; fi
}
trap at_exit EXIT   # on success and on any failure, installs included
step "disk before the run"
disk

step "installing test dependencies"
# rustfmt and clippy ship with this kind of machine's toolchain; add them where they do not.
for component in rustfmt clippy; do
  cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1 || rustup component add "$component"
done
bash scripts/install-deps.sh
bash scripts/install-terraform.sh >/dev/null          # .tools/bin/terraform (sha256-checked)
bash scripts/build-test-provider.sh >/dev/null        # .tools/provider-mirror + fake-provider.tfrc
disk

step "starting services (PostgreSQL, moto, Prism)"
eval "$(bash scripts/services.sh start)"
SERVICES_STARTED=1
export TFGATE_REQUIRE_POSTGRES=1 TFGATE_REQUIRE_PRISM=1 TFGATE_REQUIRE_TOOLS=1 TFGATE_REQUIRE_MOTO=1
unset RUST_BACKTRACE

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy"
cargo clippy --all-targets --locked -- -D warnings

step "cargo test (SQLite and PostgreSQL)"
cargo test --locked --all-targets
