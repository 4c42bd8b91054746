#!/usr/bin/env bash
# The AuthFlow demo, from a fresh Debian machine: installs the system packages the build needs, builds,
# and runs `authflow demo`: the sign-in server with every provider in ./providers.yaml pointed at the
# built-in sandbox identity provider (generated credentials; nothing leaves this machine).
# Open the URL it prints, sign in, and see the verified identity and each step of the flow.
# Ctrl-C stops it. Extra arguments go to `authflow demo` (e.g. --config my-providers.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

ensure_apt_packages "${AUTHFLOW_APT_PACKAGES[@]}"

swift build --product authflow
binary="$(swift build --product authflow --show-bin-path)/authflow"

echo "Starting the demo; open the public URL below in a browser (Ctrl-C stops)."
exec "$binary" demo "$@"
