#!/usr/bin/env bash
# A traffic mix (see mix_bench.py): session checks with sign-ins, logouts, anonymous requests and session
# reads between them at stated ratios (default 1000:5:1:20:10), against one instance on SQLite and two on
# the same PostgreSQL + Redis behind nginx; checks/s with the mix and alone, the p50/p99 latency, and the
# store round trips per check from the stores' own counters; release build; throwaway PostgreSQL and Redis
# (scripts/lib/services.sh), removed at the end. Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/mix.sh [--seconds S] [--rounds R] [--connections C] [--ratio C:S:L:A:R] [--signin-threads N]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_apt_packages postgresql redis-server
ensure_bench_venv
# shellcheck source=../scripts/lib/services.sh
source "$ROOT_DIR/scripts/lib/services.sh"
trap stop_test_services EXIT
start_test_services >&2
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR"
DRIVER_DIR=$(mktemp -d)
cc -O2 -Wall -o "$DRIVER_DIR/signin_driver" driver/signin_driver.c -lcurl -lpthread
output=$("$BENCH_PYTHON" mix_bench.py --authflow "$BIN" --signin-driver "$DRIVER_DIR/signin_driver" --postgres-url "$AUTHFLOW_TEST_POSTGRES_URL" \
    --redis-url "$AUTHFLOW_TEST_REDIS_URL" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
