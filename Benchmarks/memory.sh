#!/usr/bin/env bash
# Memory (see memory_bench.py): the RSS of `authflow serve` (memory store) and of Apache httpd with
# mod_auth_openidc (its processes summed) at rest, with idle keep-alive connections (default 10,000) and with
# live sessions (default 100,000, made by whole sign-ins from the compiled sign-in driver against one
# standalone `authflow sandbox`); release build. Raises the open-file limit for the servers and the client.
# Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/memory.sh [--connections N] [--sessions N] [--peer-sessions N] [--workers N]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_apt_packages apache2 libapache2-mod-auth-openidc
ensure_bench_venv
# Each side holds one descriptor per connection: the hard limit, and more when allowed (as root).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
DRIVER_DIR=$(mktemp -d)
trap 'rm -rf "$DRIVER_DIR"' EXIT
cc -O2 -Wall -o "$DRIVER_DIR/signin_driver" driver/signin_driver.c -lcurl -lpthread
output=$("$BENCH_PYTHON" memory_bench.py --authflow "$BIN" --signin-driver "$DRIVER_DIR/signin_driver" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
