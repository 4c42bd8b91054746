#!/usr/bin/env bash
# What tracing costs a sign-in (see tracing_bench.py): `authflow serve` with tracing off, exporting to a live
# OTLP/HTTP receiver, and exporting to a collector that is down, all against one standalone `authflow sandbox`,
# SQLite stores, one driver client. Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/tracing.sh [--count N] [--rounds R]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
output=$("$BENCH_PYTHON" tracing_bench.py --authflow "$BIN" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
