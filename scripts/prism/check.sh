#!/usr/bin/env bash
# Smoke-checks a running Prism on the prepared GitHub spec: the calls tfgate
# makes pass (2xx) with `Accept: application/vnd.github+json`, and a bad body
# is refused with a readable violation.
#
#   scripts/prism/check.sh [PRISM_URL]    (default $TFGATE_TEST_PRISM_URL)
#
# Exit 0 when every expectation holds; prints one line per call.
set -uo pipefail

URL="${1:-${TFGATE_TEST_PRISM_URL:-}}"
[ -n "$URL" ] || { echo "usage: $0 PRISM_URL (or set TFGATE_TEST_PRISM_URL)" >&2; exit 2; }
URL="${URL%/}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
FAILED=0

# expect STATUS_REGEX METHOD PATH [BODY] [ACCEPT]
expect() {
  local want="$1" method="$2" path="$3" body="${4:-}" accept="${5:-application/vnd.github+json}"
  local args=(-s -o "$TMP/body" -D "$TMP/headers" -w '%{http_code}' -X "$method"
    -H "Accept: $accept" -H 'Authorization: Bearer test-token' -H 'User-Agent: tfgate-check')
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data "$body")
  local code violations
  code="$(curl "${args[@]}" "$URL$path")"
  violations="$(grep -i '^sl-violations:' "$TMP/headers" | cut -d' ' -f2- | tr -d '\r')"
  if [[ "$code" =~ ^($want)$ ]]; then
    printf 'ok   %s %-45s -> %s\n' "$method" "$path" "$code"
  else
    printf 'FAIL %s %-45s -> %s (want %s) %s\n' "$method" "$path" "$code" "$want" "$violations"
    FAILED=1
  fi
  printf '%s' "$violations" >"$TMP/violations"
}

expect 2.. POST /repos/o/r/issues/1/comments '{"body":"tfgate: plan ok"}'
expect 2.. POST /repos/o/r/issues/comments/1/reactions '{"content":"eyes"}'
expect 2.. PATCH /repos/o/r/issues/comments/1 '{"body":"edited"}'
expect 2.. POST /app/installations/1/access_tokens ''
expect 2.. POST /app/installations/1/access_tokens '{"repositories":["r"],"permissions":{"issues":"write","checks":"write","pull_requests":"read"}}'
expect 2.. POST /app-manifests/abc123/conversions ''
expect 2.. POST /repos/o/r/check-runs '{"name":"tfgate","head_sha":"0123456789abcdef0123456789abcdef01234567","status":"in_progress"}'
expect 2.. GET /repos/o/r/pulls/1
expect 2.. GET /repos/o/r/pulls/1/files
expect 2.. GET /repos/o/r/pulls/1/reviews
expect 2.. GET /repos/o/r/collaborators/u/permission
expect 2.. GET /repos/o/r/pulls/1 '' application/vnd.github.v3+json
expect 2.. GET /repos/o/r/pulls/1 '' application/json

# Invalid body: 422 with the reason in the sl-violations header.
expect 422 POST /repos/o/r/issues/comments/1/reactions '{"content":"banana"}'
if grep -q '"code":"enum"' "$TMP/violations" && grep -q '"location":\["request","body","content"\]' "$TMP/violations"; then
  echo "ok   sl-violations: $(cat "$TMP/violations")"
else
  echo "FAIL no enum violation in sl-violations: '$(cat "$TMP/violations")'"
  FAILED=1
fi
# Operation without a 422 in the spec: Prism's own problem+json, no header.
expect 422 POST /repos/o/r/check-runs '{"head_sha":"abc"}'
if grep -q '"validation":\[' "$TMP/body"; then
  echo "ok   problem+json validation: $(head -c 300 "$TMP/body")"
else
  echo "FAIL no validation array in body: $(head -c 300 "$TMP/body")"
  FAILED=1
fi

exit "$FAILED"
