#!/usr/bin/env bash
# Instances on shared stores (see instances_bench.py): GET /auth/check with a session cookie,
# GET /auth/google/login and GET /healthz at 64 connections against one instance on SQLite, one on
# PostgreSQL + Redis (directly and behind nginx), and two on the same PostgreSQL + Redis behind one nginx
# upstream, side by side in one run; release build; throwaway PostgreSQL and Redis
# (scripts/lib/services.sh), removed at the end. Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/instances/run.sh [--seconds S] [--rounds R]
source "$(dirname "$0")/../lib.sh"
ensure_bench_tools
ensure_apt_packages postgresql redis-server
ensure_bench_venv
# shellcheck source=../../scripts/lib/services.sh
source "$ROOT_DIR/scripts/lib/services.sh"
trap stop_test_services EXIT
start_test_services >&2
BIN=$(build_authflow "$ROOT_DIR")
cd "$BENCH_DIR/instances"
output=$("$BENCH_PYTHON" instances_bench.py --authflow "$BIN" --postgres-url "$AUTHFLOW_TEST_POSTGRES_URL" \
    --redis-url "$AUTHFLOW_TEST_REDIS_URL" "$@")
printf '%s\n' "$output"
