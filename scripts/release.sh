#!/usr/bin/env bash
# A release archive an operator installs: `authflow` built in release mode with the Swift runtime linked
# statically (it needs only Debian's C libraries: libssl3, libcurl4, libmicrohttpd12, libyaml-0-2,
# libsqlite3-0, libpq5, libhiredis), with providers.yaml, the docs, the systemd unit and the project's
# notices, packed as .build/release-archive/authflow-VERSION-linux-ARCH.tar.gz.
#
# Usage: scripts/release.sh            (prints the archive's path on its last line)
# scripts/check-release.sh checks the archive (ldd, --version without a toolchain, systemd-analyze verify).
set -euo pipefail
cd "$(dirname "$0")/.."

# A build directory of its own, so a release build never waits for (or invalidates) the debug build's.
scratch=.build-release
swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product authflow
bin="$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path)/authflow"
version="$("$bin" --version | awk '{print $2}')"
arch="$(uname -m)"
name="authflow-$version-linux-$arch"

out=.build/release-archive
stage="$out/$name"
rm -rf "$stage" "$out/$name.tar.gz"
mkdir -p "$stage/bin" "$stage/docs/images" "$stage/examples/systemd" "$stage/examples/nginx" "$stage/examples/caddy" \
    "$stage/examples/traefik"
install -m 0755 "$bin" "$stage/bin/authflow"
strip --strip-unneeded "$stage/bin/authflow" 2>/dev/null || true
install -m 0644 providers.yaml "$stage/providers.yaml"
install -m 0644 docs/*.md "$stage/docs/"
install -m 0644 docs/images/* "$stage/docs/images/"
install -m 0644 examples/systemd/authflow.service "$stage/examples/systemd/"
install -m 0644 examples/nginx/authflow.conf "$stage/examples/nginx/"
install -m 0644 examples/caddy/Caddyfile "$stage/examples/caddy/"
install -m 0644 examples/traefik/traefik.yml examples/traefik/dynamic.yml "$stage/examples/traefik/"
install -m 0644 LICENSE README.md CHANGELOG.md SECURITY.md "$stage/"
tar -C "$out" --owner=0 --group=0 --numeric-owner -czf "$out/$name.tar.gz" "$name"
rm -rf "$stage"
echo "$out/$name.tar.gz"
