#!/usr/bin/env bash
# Instruction counts (callgrind) of `authflow serve` for one sign-in and one GET /auth/check, with the
# functions that cost the most, and of the HTTP layer alone (Sources/HTTPFloor) answering the same check (see
# callgrind_bench.py). Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/callgrind.sh [--signins N] [--checks N] [--top N]
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
BIN=$(build_authflow "$ROOT_DIR")
# valgrind 3.19 aborts on libdispatch's read-only sigsuspend mask: preload a sigsuspend that copies it.
PRELOAD_DIR=$(mktemp -d)
trap 'rm -rf "$PRELOAD_DIR"' EXIT
cc -shared -fPIC -O2 -o "$PRELOAD_DIR/sigsuspend_copy.so" "$BENCH_DIR/valgrind/sigsuspend_copy.c"
cd "$BENCH_DIR"
# -enable-testing: HTTPFloor passes an immediate handler, which HTTPServer takes only from the package's own code.
swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" -Xswiftc -enable-testing --product HTTPFloor >&2
FLOOR_BIN="$(swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" -Xswiftc -enable-testing --show-bin-path)/HTTPFloor"
output=$("$BENCH_PYTHON" callgrind_bench.py --authflow "$BIN" --floor "$FLOOR_BIN" \
    --preload "$PRELOAD_DIR/sigsuspend_copy.so" "$@")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
