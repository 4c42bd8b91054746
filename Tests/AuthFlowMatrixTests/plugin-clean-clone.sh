#!/usr/bin/env bash
# Checks that `swift package capability-matrix` works from a clean clone with no network: clones the
# committed tree into a temporary directory, runs the plugin there (a full build of the authflow tool),
# and compares its JSON with the expected providers. Usage: Tests/AuthFlowMatrixTests/plugin-clean-clone.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/authflow-plugin-clone.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
git clone --quiet --no-hardlinks "$root" "$scratch/authflow"
cd "$scratch/authflow"
# No network: every proxy points nowhere, and the package has no dependencies to fetch.
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9
unset GOOGLE_CLIENT_SECRET FACEBOOK_CLIENT_SECRET X_CLIENT_SECRET APPLE_TEAM_ID APPLE_KEY_ID APPLE_PRIVATE_KEY_FILE AUTHFLOW_SECRET
swift package capability-matrix --format json > "$scratch/matrix.json"
for expected in '"name": "apple"' '"name": "google"' '"name": "facebook"' '"name": "x"' '"protocol": "oidc"'; do
    grep -q "$expected" "$scratch/matrix.json" || { echo "plugin-clean-clone: missing $expected" >&2; exit 1; }
done
if swift package capability-matrix --config /nonexistent.yaml > /dev/null 2> "$scratch/err.txt"; then
    echo "plugin-clean-clone: an invalid configuration did not fail" >&2; exit 1
fi
grep -q "the configuration is invalid" "$scratch/err.txt"
echo "plugin-clean-clone: OK ($(grep -c '"name"' "$scratch/matrix.json") providers)"
