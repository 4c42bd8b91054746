#!/usr/bin/env bash
# Server throughput against nginx (see server_bench.py): GET /auth/check with a session cookie and
# GET /auth/google/login at 64 connections, /auth/check latency at one connection, memory and SQLite
# stores, release build. Prints a table, then one JSON object on the last line.
#
# Also measures the floor of the HTTP layer (Sources/HTTPFloor: AuthFlowHTTP's server answering the same
# routes with fixed responses, /auth/check on the immediate path and the login on the task path).
#
# usage: Benchmarks/server.sh [--seconds S] [--rounds R] [--stores memory,sqlite] [--baseline REV]
#   --baseline REV  also builds REV (a commit, tag or branch) in a temporary worktree and measures it
#                   side by side ("before/after").
source "$(dirname "$0")/lib.sh"
ensure_bench_tools
ensure_bench_venv
args=()
baseline=""
while [ $# -gt 0 ]; do
    case "$1" in
    --baseline) baseline=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
    esac
done
BIN=$(build_authflow "$ROOT_DIR")
if [ -n "$baseline" ]; then
    tree=$(mktemp -d /tmp/authflow-baseline-XXXXXX)
    trap 'git -C "$ROOT_DIR" worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"' EXIT
    git -C "$ROOT_DIR" worktree add --detach "$tree" "$baseline" >&2
    BASE_BIN=$(build_authflow "$tree")
    args+=(--baseline "$BASE_BIN" --baseline-label "$baseline")
fi
cd "$BENCH_DIR"
# -enable-testing: HTTPFloor passes an immediate handler, which HTTPServer takes only from the package's own code.
swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" -Xswiftc -enable-testing --product HTTPFloor >&2
FLOOR_BIN="$(swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" -Xswiftc -enable-testing --show-bin-path)/HTTPFloor"
output=$("$BENCH_PYTHON" server_bench.py --authflow "$BIN" --floor "$FLOOR_BIN" "${args[@]}")
"$BENCH_PYTHON" report.py >&2
printf '%s\n' "$output"
