#!/usr/bin/env bash
# AuthFlow against the C peer (see peer_bench.py): `authflow serve` (SQLite and memory stores) and Apache
# httpd 2.4 with mod_auth_openidc (event MPM, one child, shm session cache, its own ServerRoot and config
# under a temporary directory, never the system apache), both signing in against one standalone
# `authflow sandbox`: sign-in starts at 64 connections, session checks at 64 and 1 connection, CPU per
# whole sign-in; release build. Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/peer.sh [--seconds S] [--rounds R] [--count N] [--stores sqlite,memory]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_apt_packages apache2 libapache2-mod-auth-openidc
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
output=$("$BENCH_PYTHON" peer_bench.py --authflow "$BIN" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
