#!/usr/bin/env bash
# Checks a release archive of scripts/release.sh as an operator's machine would see it:
# - the archive holds the binary, providers.yaml, the docs, the systemd unit and the notices;
# - `ldd` shows no Swift runtime library (libswift*, libFoundation*, libdispatch, libBlocksRuntime);
# - `authflow --version` runs with no toolchain: env -i, PATH=/usr/bin:/bin, no LD_LIBRARY_PATH;
# - `systemd-analyze verify` accepts examples/systemd/authflow.service.
#
# Usage: scripts/check-release.sh [ARCHIVE]   (default: the newest .build/release-archive/*.tar.gz)
set -euo pipefail
cd "$(dirname "$0")/.."

archive="${1:-$(ls -t .build/release-archive/authflow-*.tar.gz 2>/dev/null | head -1)}"
[[ -n "$archive" && -f "$archive" ]] || { echo "check-release: no archive (run scripts/release.sh)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tar -C "$work" -xzf "$archive"
root="$(find "$work" -mindepth 1 -maxdepth 1 -type d | head -1)"
fail() { echo "check-release: $*" >&2; exit 1; }

for file in bin/authflow providers.yaml LICENSE CHANGELOG.md SECURITY.md README.md docs/deployment.md \
    examples/systemd/authflow.service examples/nginx/authflow.conf \
    examples/caddy/Caddyfile examples/traefik/traefik.yml examples/traefik/dynamic.yml; do
    [[ -f "$root/$file" ]] || fail "the archive lacks $file"
done

libraries="$(ldd "$root/bin/authflow")"
if grep -Eiq 'libswift|libFoundation|libdispatch|libBlocksRuntime|not found' <<<"$libraries"; then
    fail "bin/authflow needs libraries of the Swift toolchain (or misses one):
$libraries"
fi

version="$(env -i PATH=/usr/bin:/bin "$root/bin/authflow" --version)" || fail "authflow --version failed without a toolchain"
[[ "$version" =~ ^authflow\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "unexpected --version output: $version"
[[ "$(basename "$root")" == "authflow-${version#authflow }-linux-$(uname -m)" ]] \
    || fail "the archive's name does not carry the version $version"

# The unit names /usr/local/bin/authflow; verify it against the unpacked binary instead.
unit="$work/authflow.service"
sed "s|/usr/local/bin/authflow|$root/bin/authflow|g" "$root/examples/systemd/authflow.service" >"$unit"
systemd-analyze verify "$unit"

echo "check-release: OK: $(basename "$archive") ($version; ldd: $(wc -l <<<"$libraries") libraries, none of Swift)"
