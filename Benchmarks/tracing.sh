#!/usr/bin/env bash
# What tracing and the audit log cost a sign-in and a check (see tracing_bench.py): `authflow serve` with both off,
# exporting spans to a live OTLP/HTTP receiver, exporting to a collector that is down, and writing the audit log,
# all against one standalone `authflow sandbox`, SQLite stores, one driver client. Prints a table, then one JSON
# object on the last line.
#
# usage: Benchmarks/tracing.sh [--count N] [--rounds R] [--seconds S]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
output=$("$BENCH_PYTHON" tracing_bench.py --authflow "$BIN" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
