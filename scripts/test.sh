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

# Each step says how long the run has taken when it starts, so a slow step shows in CI's log.
started=$SECONDS
step() { echo "==> [$(( (SECONDS - started) / 60 ))m$(( (SECONDS - started) % 60 ))s] $*"; }

# Formatting (.swift-format at the root): any finding fails the run.
step "swift format lint"
swift format lint --strict --recursive Sources Tests
# No function anywhere in Sources/ over 60 lines (docs/architecture.md, "Sizes").
step "function sizes"
python3 scripts/check-function-length.py --limit 60 Sources

# The layers of docs/architecture.md on the target graph: the core, plugins and stores reach no C HTTP library.
step "module layers"
bash scripts/check-layers.sh
# Comments and docs cite docs/ and public sources, never notes kept outside the repository (the script names them).
step "outside references"
bash scripts/check-references.sh
# No Swift test sleeps to wait for something: it waits for the condition (Tests/Support/AuthFlowTestSupport/Waiting.swift).
step "no test sleeps"
bash scripts/check-test-sleeps.sh
# The stable error codes are listed in docs/errors.md (the contract a program matches on), generated from the sources.
step "error codes"
python3 scripts/error-codes.py --check

# The alerting rules of examples/prometheus: valid, and firing as their unit tests expect.
step "alerting rules"
promtool check rules examples/prometheus/alerts.yml
promtool test rules examples/prometheus/alerts.test.yml

step "swift build"
swift build
# The public API, listed from the symbol graphs of that build, against the baseline in api/: a public
# declaration added, removed or changed without `bash scripts/api.sh --write` fails here (docs/public-api.md).
step "public API"
bash scripts/api.sh --check
step "swift test"
swift test

# Every Swift block of README.md, docs/ and examples/ compiles (scripts/lib/samples.py).
step "samples"
bash scripts/check-samples.sh
# DocC for every library module, without warnings, into .build/docs/<Module>.doccarchive.
step "DocC"
bash scripts/docs.sh
# The embedding examples: a package of their own that depends on this one by path.
step "embedding examples"
swift build --package-path examples/Embedding
export AUTHFLOW_EMBEDDING_BIN="$(swift build --package-path examples/Embedding --show-bin-path)"

# The black-box end-to-end suite (Tests/e2e): the freshly built `authflow` started as a process
# (`serve --sandbox`, `demo`) and the embedding examples next to `authflow sandbox`, driven over HTTP and
# through headless Chromium. Any failure fails the script.
step "end-to-end suite"
AUTHFLOW_BIN="$(swift build --show-bin-path)/authflow" .venv/bin/python -m pytest -q Tests/e2e

# The release archive: built in release mode with the Swift runtime linked statically (several minutes),
# then checked as an operator's machine sees it (ldd, --version without a toolchain, systemd-analyze verify).
step "release archive"
bash scripts/release.sh
bash scripts/check-release.sh

# Every benchmark runner of Benchmarks/ once, with tiny settings, on the release binary just built: the runners
# still work from a fresh clone. It measures nothing (the figures go to a scratch directory, no timing is
# asserted); Benchmarks/README.md says how to run them for real.
step "benchmark runners, smoke"
bash scripts/bench-smoke.sh "$(swift build -c release --static-swift-stdlib --scratch-path .build-release --show-bin-path)/authflow"

# `swift package capability-matrix` from a clean clone of the committed tree, offline.
step "capability-matrix plugin from a clean clone"
Tests/AuthFlowMatrixTests/plugin-clean-clone.sh

# Every fuzz harness briefly on its seed corpus (about a minute in all); scripts/fuzz.sh 600 for the long run.
step "fuzz harnesses"
scripts/fuzz.sh 6
