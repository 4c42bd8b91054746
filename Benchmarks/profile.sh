#!/usr/bin/env bash
# Where the time goes (see profile_bench.py): `perf record -g` attached to `authflow serve` (SQLite store)
# during whole sign-ins and during `GET /auth/google/login` at 64 connections, broken down into system
# calls and libraries, in µs per operation. Needs perf allowed to record another process (root, or
# kernel.perf_event_paranoid ≤ 1). Prints tables, then one JSON object on the last line.
#
# usage: Benchmarks/profile.sh [--signins N] [--seconds S] [--keep DIR]
source "$(dirname "$0")/lib.sh"
PROFILE_APT_PACKAGES=(linux-perf)
ensure_bench_tools
ensure_apt_packages "${PROFILE_APT_PACKAGES[@]}"
ensure_bench_venv
cd "$BENCH_DIR"
"$BENCH_PYTHON" profile_bench.py --check-perf # fails at once, before building, when perf cannot record
BIN=$(build_authflow "$ROOT_DIR")
output=$("$BENCH_PYTHON" profile_bench.py --authflow "$BIN" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
