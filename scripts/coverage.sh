#!/usr/bin/env bash
# Line, region and branch coverage of the Swift tests, per module of Sources/: builds with coverage, runs
# `swift test --enable-code-coverage` (extra arguments go to swift test, e.g. --filter), then summarizes
# llvm-cov's export by module. The test binary and the `authflow` tool the CLI tests start both count.
# Usage: scripts/coverage.sh [swift test arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain="$(dirname "$(readlink -f "$(command -v swift)")")"
llvm_cov="$toolchain/llvm-cov"
[ -x "$llvm_cov" ] || llvm_cov="$(command -v llvm-cov)"
llvm_profdata="$toolchain/llvm-profdata"
[ -x "$llvm_profdata" ] || llvm_profdata="$(command -v llvm-profdata)"
source scripts/lib/setup.sh
source scripts/lib/services.sh

# The same machine set-up as scripts/test.sh: system packages, the Python test peers (unless AUTHFLOW_PYTHON
# already names an interpreter that has them), throwaway PostgreSQL and Redis for the store tests. Tests that
# need a peer fail rather than skip, so a missing peer cannot hide as missing coverage.
ensure_apt_packages "${AUTHFLOW_APT_PACKAGES[@]}" "${AUTHFLOW_APT_TEST_PACKAGES[@]}"
if [ -z "${AUTHFLOW_PYTHON:-}" ]; then
    ensure_python_venv
    export AUTHFLOW_PYTHON="$PWD/.venv/bin/python"
fi
export AUTHFLOW_REQUIRE_PEERS=1
trap stop_test_services EXIT
start_test_services

swift build --build-tests --enable-code-coverage
bin="$(swift build --show-bin-path)"
# Profiles of an earlier run (another binary, another filter) would be merged into this one's figures.
rm -rf "$bin/codecov"
# Failures still leave coverage data to report; the status is returned at the end.
set +e
swift test --skip-build --enable-code-coverage "$@"
status=$?
set -e
# swift test merges the raw profiles only when every test passed; merge them here either way.
profdata="$bin/codecov/default.profdata"
shopt -s nullglob
raw=("$bin"/codecov/*.profraw)
[ "${#raw[@]}" -gt 0 ] || { echo "coverage: no raw profiles in $bin/codecov" >&2; exit 1; }
"$llvm_profdata" merge -sparse "${raw[@]}" -o "$profdata"
objects=("$bin/AuthFlowPackageTests.xctest")
[ -x "$bin/authflow" ] && objects+=(-object "$bin/authflow")
"$llvm_cov" export -summary-only -instr-profile "$profdata" "${objects[@]}" \
    -ignore-filename-regex='(/Tests/|/\.build/|/Plugins/)' > "$bin/codecov/summary.json"
python3 - "$bin/codecov/summary.json" "$PWD/Sources/" <<'PY'
import json, sys
summary, prefix = json.load(open(sys.argv[1])), sys.argv[2]
kinds = ("lines", "regions", "branches")
modules = {}
for data in summary["data"]:
    for entry in data["files"]:
        name = entry["filename"]
        if not name.startswith(prefix):
            continue
        module = name[len(prefix):].split("/", 1)[0]
        totals = modules.setdefault(module, {kind: [0, 0] for kind in kinds})
        for kind in kinds:
            totals[kind][0] += entry["summary"][kind]["covered"]
            totals[kind][1] += entry["summary"][kind]["count"]
def cell(covered, count):
    return f"{100.0 * covered / count:6.1f} % {covered:>6}/{count:<6}" if count else f"{'—':>8} {'':>13}"
print(f"{'module':<20} {'lines':<22} {'regions':<22} {'branches':<22}")
for module in sorted(modules):
    print(f"{module:<20} " + " ".join(cell(*modules[module][kind]) for kind in kinds))
if not any(totals["branches"][1] for totals in modules.values()):
    # swiftc instruments code regions only; llvm-cov derives branch counts from clang's branch regions,
    # which Swift does not emit. Regions (each arm of an if/guard/switch/?:/&&/|| is one) stand in for them.
    print("branches: swiftc emits no branch regions, so llvm-cov counts none; regions are the closest measure")
PY
exit "$status"
