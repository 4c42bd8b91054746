#!/usr/bin/env bash
# The benchmark smoke step: every runner in Benchmarks/ with tiny settings on the given `authflow` binary (the
# test suite passes the release archive's), to prove the runners still work from a fresh clone. The Benchmarks
# package's own tools (JOSEBenchmark, HTTPFloor) are built in debug to save the time of a second release build. It measures nothing: the figures go to a scratch
# directory (AUTHFLOW_BENCH_RESULTS), never to BENCHMARKS.md or Benchmarks/results, and no timing is asserted.
# Benchmarks/README.md says how to run them for real.
#
# usage: scripts/bench-smoke.sh AUTHFLOW_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: scripts/bench-smoke.sh AUTHFLOW_BINARY (an executable authflow, found '${1:-nothing}')" >&2
    exit 2
fi
AUTHFLOW_BENCH_BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
AUTHFLOW_BENCH_RESULTS=$(mktemp -d)
export AUTHFLOW_BENCH_BIN AUTHFLOW_BENCH_RESULTS AUTHFLOW_BENCH_CONFIGURATION=debug
trap 'rm -rf "$AUTHFLOW_BENCH_RESULTS"' EXIT

run() {
    local name=$1
    shift
    local log="$AUTHFLOW_BENCH_RESULTS/$name.log"
    echo "  -> $name" >&2
    if ! "$@" >"$log" 2>&1; then
        echo "benchmark runner $name failed; its output:" >&2
        tail -40 "$log" >&2
        exit 1
    fi
    # Every runner prints its result as one JSON object on its last line.
    tail -1 "$log" | python3 -c 'import json, sys; json.loads(sys.stdin.read())' \
        || { echo "benchmark runner $name: expected a JSON object on its last line" >&2; tail -5 "$log" >&2; exit 1; }
}

run jose bash Benchmarks/run.sh 1 1
run server bash Benchmarks/server.sh --seconds 1 --rounds 1 --stores memory
run signin bash Benchmarks/signin.sh --count 3 --rounds 1
run peer bash Benchmarks/peer.sh --seconds 1 --rounds 1 --count 3 --stores sqlite
run memory bash Benchmarks/memory.sh --connections 20 --sessions 50 --peer-sessions 50 --workers 2
run callgrind bash Benchmarks/callgrind.sh --signins 1 --checks 3 --logins 3
run mix bash Benchmarks/mix.sh --seconds 1 --rounds 1
run instances bash Benchmarks/instances/run.sh --seconds 1 --rounds 1
run passkey bash Benchmarks/passkey.sh --count 3 --rounds 1
run dpop bash Benchmarks/dpop.sh --count 3 --rounds 1 --jose-seconds 0.2
run tracing bash Benchmarks/tracing.sh --count 3 --rounds 1 --seconds 1
# perf may not be allowed to record here (containers, kernel.perf_event_paranoid > 1): ask it first.
if (source Benchmarks/lib.sh && ensure_apt_packages linux-perf && ensure_bench_venv && cd "$BENCH_DIR" \
    && "$BENCH_PYTHON" profile_bench.py --check-perf) >"$AUTHFLOW_BENCH_RESULTS/perf-check.log" 2>&1; then
    run profile bash Benchmarks/profile.sh --signins 3 --seconds 1
else
    echo "  -> profile: skipped, perf cannot record here: $(tail -1 "$AUTHFLOW_BENCH_RESULTS/perf-check.log")" >&2
fi
echo "benchmark runners: all passed with tiny settings" >&2
