#!/usr/bin/env bash
# The whole AuthFlow test suite, from a fresh Debian machine: installs the system packages and
# the Python test peers it needs, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

ensure_apt_packages "${AUTHFLOW_APT_PACKAGES[@]}" "${AUTHFLOW_APT_TEST_PACKAGES[@]}"
ensure_python_venv

# Tests that need a Python peer find it here, and fail (rather than skip) when it is missing.
export AUTHFLOW_PYTHON="$PWD/.venv/bin/python"
export AUTHFLOW_REQUIRE_PEERS=1

swift build
swift test
