#!/usr/bin/env bash
# What DPoP costs the server (see dpop_bench.py): CPU per whole sign-in of one `authflow serve` (SQLite) with a
# `type: oidc` provider with `dpop: true` against the same provider with `dpop: false`, both on the OpenID issuer
# of one standalone `authflow sandbox --dpop`; the provider calls that carried a proof, the cost per call, and
# JOSEBenchmark's time of one proof beside one ES256 signature. Prints a table, then one JSON object on the last
# line.
#
# usage: Benchmarks/dpop.sh [--count N] [--rounds R] [--jose-seconds S]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" --product JOSEBenchmark >&2
JOSE="$(swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" --show-bin-path)/JOSEBenchmark"
output=$("$BENCH_PYTHON" dpop_bench.py --authflow "$BIN" --jose "$JOSE" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
