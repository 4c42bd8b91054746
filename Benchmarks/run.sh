#!/usr/bin/env bash
# Measures, in one run and on one core, ES256 sign, ES256 verify and RS256 (2048) verify for
# AuthFlow (release build, full JWT path), `openssl speed` (the limit) and PyJWT (the peer).
# Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/run.sh [seconds-per-measurement] [rounds]
#   AUTHFLOW_PYTHON      Python with PyJWT (default: .venv/bin/python of the repository, then python3)
#   AUTHFLOW_BENCH_CORE  the CPU core to pin to (default 0)
# Each tool is measured `rounds` times, interleaved, and its best round is kept, so a burst of
# load from other processes penalises no tool more than another.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_PER=${1:-3}
ROUNDS=${2:-3}
CORE=${AUTHFLOW_BENCH_CORE:-0}

PYTHON=${AUTHFLOW_PYTHON:-}
if [ -z "$PYTHON" ]; then
    if [ -x ../.venv/bin/python ]; then PYTHON=../.venv/bin/python; else PYTHON=python3; fi
fi

swift build -c release --product JOSEBenchmark >&2
BIN="$(swift build -c release --show-bin-path)/JOSEBenchmark"

pin() {
    if command -v taskset >/dev/null 2>&1; then taskset -c "$CORE" "$@"; else "$@"; fi
}

# openssl speed → {"es256_sign": N, "es256_verify": N, "rs256_verify": N}
openssl_once() {
    pin openssl speed -seconds "$SECONDS_PER" -elapsed ecdsap256 rsa2048 2>/dev/null | awk '
        /^rsa 2048 bits/ { rsa_verify = $NF }
        /ecdsa \(nistp256\)/ { ec_sign = $(NF-1); ec_verify = $NF }
        END { printf "{\"es256_sign\": %d, \"es256_verify\": %d, \"rs256_verify\": %d}\n", ec_sign, ec_verify, rsa_verify }'
}

authflow_runs=()
openssl_runs=()
pyjwt_runs=()
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round/$ROUNDS: authflow" >&2
    authflow_runs+=("$(pin "$BIN" "$SECONDS_PER")")
    echo "round $round/$ROUNDS: openssl speed" >&2
    openssl_runs+=("$(openssl_once)")
    echo "round $round/$ROUNDS: pyjwt" >&2
    pyjwt_runs+=("$(pin "$PYTHON" pyjwt_bench.py "$SECONDS_PER")")
done

python3 - "$ROUNDS" "${authflow_runs[@]}" "${openssl_runs[@]}" "${pyjwt_runs[@]}" <<'PY'
import json, sys
rounds = int(sys.argv[1])
runs = [json.loads(text) for text in sys.argv[2:]]
tools = {"authflow": runs[0:rounds], "openssl": runs[rounds:2 * rounds], "pyjwt": runs[2 * rounds:3 * rounds]}
operations = ["es256_sign", "es256_verify", "rs256_verify"]
best = {op: {tool: max(r[op] for r in results) for tool, results in tools.items()} for op in operations}
targets = {"es256_sign": (0.75, None), "es256_verify": (0.85, 1.3), "rs256_verify": (0.75, 2.0)}
print(f"{'operation':<14}{'authflow':>12}{'openssl':>12}{'pyjwt':>12}{'÷openssl':>10}{'target':>8}{'÷pyjwt':>9}{'target':>8}")
for op in operations:
    row = best[op]
    vs_openssl = row["authflow"] / row["openssl"] if row["openssl"] else 0
    vs_pyjwt = row["authflow"] / row["pyjwt"] if row["pyjwt"] else 0
    t_openssl, t_pyjwt = targets[op]
    print(f"{op:<14}{row['authflow']:>12}{row['openssl']:>12}{row['pyjwt']:>12}{vs_openssl:>10.2f}{'≥' + str(t_openssl):>8}"
          f"{vs_pyjwt:>9.2f}{('≥' + str(t_pyjwt)) if t_pyjwt else '-':>8}")
print("(ops/s, best of %d rounds, one core)" % rounds)
print(json.dumps(best))
PY
