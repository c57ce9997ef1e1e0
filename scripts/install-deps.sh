#!/usr/bin/env bash
# Installs what tfgate's tests and benchmarks use, when it is missing.
#
#   scripts/install-deps.sh            # everything
#   scripts/install-deps.sh apt pip npm spec   # a subset (any order)
#
# Idempotent: a second run finds everything in place and changes nothing
# (a few hundred milliseconds). Needs root for apt (Debian 12).
#
# What goes where:
#   apt : postgresql bubblewrap protobuf-compiler libprotobuf-dev wrk jq curl chromium
#         chromium-driver (system-wide)
#   pip : moto[server] into .tools/venv (never touches the system Python)
#   npm : Prism, GitHub's REST spec, webhook examples, @octokit/webhooks into .tools/node
#   spec: .tools/github-spec.json, the REST spec prepared for Prism
#         (scripts/prism/prepare-spec.js)
# .tools/ is git-ignored.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TFGATE_TOOLS_DIR:-$ROOT/.tools}"
VENV="$TOOLS/venv"
NODE_PREFIX="$TOOLS/node"

# ---- pinned versions -------------------------------------------------------
# chromium + chromium-driver: the web UI's browser tests (tests/ui_browser.rs); libssl-dev and
# pkg-config: its WebDriver client (fantoccini) is built with native-tls (OpenSSL).
APT_PACKAGES=(postgresql bubblewrap protobuf-compiler libprotobuf-dev wrk jq curl chromium chromium-driver libssl-dev pkg-config)
MOTO_VERSION="5.2.5"
# Prism 5.15+ requires Node >= 24; 5.14.2 is the newest that runs on Node 20.
NPM_PACKAGES=(
  "@stoplight/prism-cli@5.14.2"
  "@octokit/openapi@23.0.2"
  "@octokit/webhooks-examples@7.6.1"
  "@octokit/webhooks@14.2.0"
)
# ---------------------------------------------------------------------------

INSTALLED=()
log() { printf '[install-deps] %s\n' "$*" >&2; }

apt_missing() {
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$p")
    fi
  done
  printf '%s\n' "${missing[@]}"
}

APT_UPDATED=0
apt_install() {
  local missing
  mapfile -t missing < <(apt_missing "$@" | sed '/^$/d')
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    log "need root to apt-get install: ${missing[*]}"
    exit 1
  fi
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  INSTALLED+=("apt: ${missing[*]}")
}

do_apt() {
  apt_install "${APT_PACKAGES[@]}"
  # Debian's postgresql package creates a default cluster (main, port 5432) and
  # starts it under systemd; in containers there is no systemd, so nothing runs.
  # scripts/services.sh uses its own cluster in .tools/run and never touches it.
}

do_pip() {
  if [ -x "$VENV/bin/moto_server" ] &&
    [ "$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("moto"))' 2>/dev/null)" = "$MOTO_VERSION" ]; then
    return 0
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    # /usr/bin/python3 first: a pyenv shim may vanish; Debian's needs python3-venv.
    local py=/usr/bin/python3
    [ -x "$py" ] || py="$(command -v python3)"
    if ! "$py" -m venv "$VENV" >/dev/null 2>&1; then
      rm -rf "$VENV"
      apt_install python3-venv
      "$py" -m venv "$VENV"
    fi
  fi
  log "pip install moto[server]==$MOTO_VERSION into $VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    "moto[server]==$MOTO_VERSION"
  INSTALLED+=("pip: moto[server]==$MOTO_VERSION (in $VENV)")
}

npm_installed_version() {
  local pj="$NODE_PREFIX/node_modules/$1/package.json"
  [ -f "$pj" ] && node -p "require(process.argv[1]).version" "$pj" 2>/dev/null
}

do_npm() {
  if ! command -v node >/dev/null; then
    # Machines of this kind ship Node 20; a bare Debian 12 gets its own Node 18 (enough here).
    apt_install nodejs npm
  fi
  local spec name version need=()
  for spec in "${NPM_PACKAGES[@]}"; do
    name="${spec%@*}"
    version="${spec##*@}"
    if [ "$(npm_installed_version "$name" || true)" != "$version" ]; then
      need+=("$spec")
    fi
  done
  [ "${#need[@]}" -eq 0 ] && return 0
  mkdir -p "$NODE_PREFIX"
  log "npm install ${NPM_PACKAGES[*]} into $NODE_PREFIX"
  # Install the full pinned set each time so package.json keeps all of them.
  npm install --prefix "$NODE_PREFIX" --no-audit --no-fund --loglevel=error \
    --save-exact "${NPM_PACKAGES[@]}" >/dev/null
  INSTALLED+=("npm: ${need[*]}")
}

do_spec() {
  local src="$NODE_PREFIX/node_modules/@octokit/openapi/generated/api.github.com.json"
  local out="$TOOLS/github-spec.json"
  [ -f "$src" ] || { log "$src missing (run the npm part first)"; exit 1; }
  # npm gives package files a fixed old mtime, so stamp the inputs instead:
  # the openapi package version and the preparing script's checksum.
  local stamp
  stamp="openapi=$(npm_installed_version @octokit/openapi) prepare=$(cksum <"$ROOT/scripts/prism/prepare-spec.js" | cut -d' ' -f1)"
  if [ -f "$out" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$stamp" ]; then
    return 0
  fi
  node "$ROOT/scripts/prism/prepare-spec.js" "$src" "$out"
  echo "$stamp" >"$out.stamp"
  INSTALLED+=("spec: $out ($stamp)")
}

main() {
  local parts=("$@")
  [ "${#parts[@]}" -eq 0 ] && parts=(apt pip npm spec)
  mkdir -p "$TOOLS"
  local start=$SECONDS part
  for part in "${parts[@]}"; do
    case "$part" in
      apt | pip | npm | spec) "do_$part" ;;
      *) log "unknown part '$part' (apt|pip|npm|spec)"; exit 2 ;;
    esac
  done
  if [ "${#INSTALLED[@]}" -eq 0 ]; then
    echo "install-deps: everything already installed (${parts[*]})"
  else
    echo "install-deps: installed in $((SECONDS - start)) s:"
    printf '  %s\n' "${INSTALLED[@]}"
  fi
}

main "$@"
