#!/usr/bin/env bash
# What a passkey costs the server (see passkey_bench.py): CPU per passkey registration and per passkey sign-in
# against CPU per whole Google OIDC sign-in, one `authflow serve` on SQLite, python-fido2 as the authenticator.
# Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/passkey.sh [--count N] [--rounds R]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
output=$("$BENCH_PYTHON" passkey_bench.py --authflow "$BIN" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
