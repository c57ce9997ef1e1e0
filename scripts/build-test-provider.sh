#!/usr/bin/env bash
# Build test-provider/ (terraform-provider-fake) and install it into a filesystem mirror.
#
# Usage: scripts/build-test-provider.sh [DEST_MIRROR] [CLI_CONFIG]
#   DEST_MIRROR  default: .tools/provider-mirror
#   CLI_CONFIG   default: <parent of DEST_MIRROR>/fake-provider.tfrc
#   PROFILE=debug to build without --release (faster build, same behaviour).
#
# Result:
#   DEST_MIRROR/registry.terraform.io/tfgate/fake/0.1.0/linux_amd64/terraform-provider-fake_v0.1.0
#   CLI_CONFIG: a Terraform CLI config (use with TF_CLI_CONFIG_FILE) that installs
#     registry.terraform.io/tfgate/* only from DEST_MIRROR and everything else directly.
# Prints the CLI config path on stdout (last line).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
DEST_MIRROR="${1:-$ROOT/.tools/provider-mirror}"
mkdir -p "$DEST_MIRROR"
DEST_MIRROR="$(cd "$DEST_MIRROR" && pwd)"
CLI_CONFIG="${2:-$(dirname "$DEST_MIRROR")/fake-provider.tfrc}"
PROFILE="${PROFILE:-release}"

VERSION="0.1.0"
PLATFORM="linux_amd64"
BIN_NAME="terraform-provider-fake"

"$HERE/ensure-debian-packages.sh" protobuf-compiler libprotobuf-dev   # protoc + google/protobuf/*.proto
command -v cargo >/dev/null || { echo "build-test-provider: ERROR: cargo not found" >&2; exit 1; }

CARGO_FLAGS=(--manifest-path "$ROOT/test-provider/Cargo.toml" --bin "$BIN_NAME")
if [[ "$PROFILE" == "release" ]]; then CARGO_FLAGS+=(--release); fi
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/test-provider/target}"
echo "build-test-provider: cargo build ($PROFILE)" >&2
CARGO_TARGET_DIR="$TARGET_DIR" cargo build --quiet "${CARGO_FLAGS[@]}" >&2
BUILT="$TARGET_DIR/$PROFILE/$BIN_NAME"
[[ -x "$BUILT" ]] || { echo "build-test-provider: ERROR: $BUILT not built" >&2; exit 1; }

PKG_DIR="$DEST_MIRROR/registry.terraform.io/tfgate/fake/$VERSION/$PLATFORM"
mkdir -p "$PKG_DIR"
install -m 0755 "$BUILT" "$PKG_DIR/${BIN_NAME}_v$VERSION.tmp.$$"
mv -f "$PKG_DIR/${BIN_NAME}_v$VERSION.tmp.$$" "$PKG_DIR/${BIN_NAME}_v$VERSION"

mkdir -p "$(dirname "$CLI_CONFIG")"
cat > "$CLI_CONFIG.tmp.$$" <<TFRC
# Written by scripts/build-test-provider.sh. Use with TF_CLI_CONFIG_FILE.
provider_installation {
  filesystem_mirror {
    path    = "$DEST_MIRROR"
    include = ["registry.terraform.io/tfgate/*"]
  }
  direct {
    exclude = ["registry.terraform.io/tfgate/*"]
  }
}
TFRC
mv -f "$CLI_CONFIG.tmp.$$" "$CLI_CONFIG"
echo "build-test-provider: installed $PKG_DIR/${BIN_NAME}_v$VERSION" >&2
echo "$CLI_CONFIG"
