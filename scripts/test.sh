#!/usr/bin/env bash
# The whole AuthFlow test suite, from a fresh Debian machine: installs the system packages and
# the Python test peers it needs, builds, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
source scripts/lib/services.sh

ensure_apt_packages "${AUTHFLOW_APT_PACKAGES[@]}" "${AUTHFLOW_APT_TEST_PACKAGES[@]}"
ensure_python_venv

# Throwaway PostgreSQL and Redis for the store tests (AUTHFLOW_TEST_POSTGRES_URL, AUTHFLOW_TEST_REDIS_URL),
# removed however the run ends.
trap stop_test_services EXIT
start_test_services

# Tests that need a Python peer find it here, and fail (rather than skip) when it is missing.
export AUTHFLOW_PYTHON="$PWD/.venv/bin/python"
export AUTHFLOW_REQUIRE_PEERS=1

# Formatting (.swift-format at the root): any finding fails the run.
swift format lint --strict --recursive Sources Tests

swift build
swift test

# The black-box end-to-end suite (Tests/e2e): the freshly built `authflow` started as a process
# (`serve --sandbox`, `demo`), driven over HTTP and through headless Chromium. Any failure fails the script.
AUTHFLOW_BIN="$(swift build --show-bin-path)/authflow" .venv/bin/python -m pytest -q Tests/e2e
