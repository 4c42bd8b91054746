# Shared set-up for the benchmark runners: installs what they need on a Debian machine (through the
# helpers of scripts/lib/setup.sh), builds the release binaries, pins processes to cores, and records
# results. Sourced by the runners, not run.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT_DIR="$(cd "$BENCH_DIR/.." && pwd)"
# shellcheck source=../scripts/lib/setup.sh
source "$ROOT_DIR/scripts/lib/setup.sh"

# The machine's tools the runners use (besides the C libraries AuthFlow itself needs).
BENCH_APT_PACKAGES=(wrk nginx valgrind gcc libc6-dev util-linux python3 python3-venv procps openssl curl)

# Core the measured server (or tool) runs on, and the core its load generator runs on.
SERVER_CORE=${AUTHFLOW_BENCH_CORE:-0}
CLIENT_CORE=${AUTHFLOW_BENCH_CLIENT_CORE:-1}

# ensure_bench_tools: the apt packages above plus AuthFlow's own build dependencies.
ensure_bench_tools() {
    ensure_apt_packages "${AUTHFLOW_APT_PACKAGES[@]}" "${BENCH_APT_PACKAGES[@]}"
}

# ensure_bench_venv: Benchmarks/.venv with the Python peers (PyJWT, authlib, Flask, gunicorn) and
# matplotlib for the chart; sets BENCH_PYTHON. AUTHFLOW_BENCH_PYTHON overrides it (that Python must
# have every package of Benchmarks/requirements.txt).
ensure_bench_venv() {
    if [ -n "${AUTHFLOW_BENCH_PYTHON:-}" ]; then
        BENCH_PYTHON=$AUTHFLOW_BENCH_PYTHON
        return
    fi
    local venv="$BENCH_DIR/.venv"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sys' >/dev/null 2>&1; then
        rm -rf "$venv"
        if ! python3 -m venv "$venv" >/dev/null 2>&1; then
            ensure_apt_packages python3-venv
            python3 -m venv "$venv"
        fi
    fi
    if ! cmp -s "$BENCH_DIR/requirements.txt" "$venv/.requirements" 2>/dev/null; then
        echo "==> installing the benchmark peers into Benchmarks/.venv" >&2
        "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$BENCH_DIR/requirements.txt" >&2
        cp "$BENCH_DIR/requirements.txt" "$venv/.requirements"
    fi
    BENCH_PYTHON="$venv/bin/python"
}

# build_authflow [DIR]: release build of the `authflow` executable of the package at DIR (default: this
# repository); prints the binary's path. AUTHFLOW_BENCH_BIN names a binary to use instead (the test suite's
# benchmark smoke step, scripts/bench-smoke.sh, passes the release archive's binary, to prove they work).
build_authflow() {
    local dir=${1:-$ROOT_DIR}
    if [ -n "${AUTHFLOW_BENCH_BIN:-}" ] && [ "$dir" = "$ROOT_DIR" ]; then
        echo "$AUTHFLOW_BENCH_BIN"
        return
    fi
    (cd "$dir" && swift build -c release --product authflow >&2)
    echo "$(cd "$dir" && swift build -c release --show-bin-path)/authflow"
}

# pin CORE CMD...: runs CMD on one core when taskset exists.
pin() {
    local core=$1
    shift
    if command -v taskset >/dev/null 2>&1; then taskset -c "$core" "$@"; else "$@"; fi
}

# free_port: a free TCP port on 127.0.0.1.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_http URL [SECONDS]: waits until URL answers at all (any status).
wait_http() {
    local url=$1 limit=${2:-30} i
    for ((i = 0; i < limit * 10; i++)); do
        if curl -s -o /dev/null --max-time 1 "$url"; then return 0; fi
        sleep 0.1
    done
    echo "no answer from $url after ${limit}s" >&2
    return 1
}

# machine_load: the 1-minute load average and the number of cores, for the record.
machine_load() {
    echo "$(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores"
}
