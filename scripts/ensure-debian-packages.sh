#!/usr/bin/env bash
# Ensure Debian packages are installed: scripts/ensure-debian-packages.sh PKG...
# Installs only the missing ones with apt-get (needs root); fails loudly otherwise.
# tfgate needs: bubblewrap (sandbox); protobuf-compiler and libprotobuf-dev (the well-known
# .proto files such as google/protobuf/empty.proto) to build test-provider/.
set -euo pipefail
missing=()
for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
    echo "ensure-debian-packages: ERROR: missing ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "ensure-debian-packages: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
apt-get install -y -qq "${missing[@]}" >&2
