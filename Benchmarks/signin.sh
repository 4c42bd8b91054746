#!/usr/bin/env bash
# Whole sign-ins (see signin_bench.py): `authflow serve` against a Flask + authlib app under gunicorn,
# both against one standalone `authflow sandbox`, SQLite stores, one driver client. Prints a table,
# then one JSON object on the last line.
#
# usage: Benchmarks/signin.sh [--count N] [--rounds R]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
output=$("$BENCH_PYTHON" signin_bench.py --authflow "$BIN" --python "$BENCH_PYTHON" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
