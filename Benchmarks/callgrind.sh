#!/usr/bin/env bash
# Instruction counts (callgrind) of `authflow serve` for one sign-in and one GET /auth/check, with the
# functions that cost the most (see callgrind_bench.py). Prints a table, then one JSON object on the
# last line.
#
# usage: Benchmarks/callgrind.sh [--signins N] [--checks N] [--top N]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
output=$("$BENCH_PYTHON" callgrind_bench.py --authflow "$BIN" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
