#!/usr/bin/env bash
# Measures, in one run and on one core, ES256 sign, ES256 verify and RS256 (2048) verify for
# AuthFlow (release build, full JWT path), `openssl speed` (the limit), the libcrypto floor of
# AuthFlow's path (floor/jose_floor.c: only the OpenSSL calls the path makes, hash of the signing
# input included) and PyJWT (the peer). Prints a table, then one JSON object on the last line.
#
# usage: Benchmarks/run.sh [seconds-per-measurement] [rounds]
#   AUTHFLOW_BENCH_PYTHON  Python with the packages of Benchmarks/requirements.txt (default: Benchmarks/.venv,
#                          created and filled on first use)
#   AUTHFLOW_BENCH_CORE    the CPU core to pin to (default 0)
# Each tool is measured `rounds` times, interleaved, and its best round is kept, so a burst of
# load from other processes penalises no tool more than another. The result is also written to
# Benchmarks/results/jose.json, from which Benchmarks/report.py draws BENCHMARKS.md and its chart.
source "$(dirname "$0")/lib.sh"
cd "$BENCH_DIR"
SECONDS_PER=${1:-3}
ROUNDS=${2:-3}
# `openssl speed -seconds` takes whole seconds only.
for value in "$SECONDS_PER" "$ROUNDS"; do
    if ! [[ $value =~ ^[1-9][0-9]*$ ]]; then
        echo "usage: Benchmarks/run.sh [seconds-per-measurement] [rounds]: expected whole numbers from 1, found '$value'" >&2
        exit 2
    fi
done
CORE=$SERVER_CORE

ensure_bench_tools
ensure_bench_venv
PYTHON=$BENCH_PYTHON
LOAD_BEFORE=$(machine_load)

swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" --product JOSEBenchmark >&2
BIN="$(swift build -c "${AUTHFLOW_BENCH_CONFIGURATION:-release}" --show-bin-path)/JOSEBenchmark"
FLOOR_DIR=$(mktemp -d)
trap 'rm -rf "$FLOOR_DIR"' EXIT
cc -O2 -Wall -o "$FLOOR_DIR/jose_floor" floor/jose_floor.c -lcrypto

# openssl speed → {"es256_sign": N, "es256_verify": N, "rs256_verify": N}
openssl_once() {
    pin "$CORE" openssl speed -seconds "$SECONDS_PER" -elapsed ecdsap256 rsa2048 2>/dev/null | awk '
        /^rsa 2048 bits/ { rsa_verify = $NF }
        /ecdsa \(nistp256\)/ { ec_sign = $(NF-1); ec_verify = $NF }
        END { printf "{\"es256_sign\": %d, \"es256_verify\": %d, \"rs256_verify\": %d}\n", ec_sign, ec_verify, rsa_verify }'
}

# The floor hashes signing inputs as long as the benchmark's tokens': "es256_input_bytes rs256_input_bytes".
input_lengths() {
    "$PYTHON" -c 'import json, sys; r = json.loads(sys.argv[1]); print(r["es256_input_bytes"], r["rs256_input_bytes"])' "$1"
}

authflow_runs=()
openssl_runs=()
floor_runs=()
pyjwt_runs=()
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round/$ROUNDS: authflow" >&2
    authflow_runs+=("$(pin "$CORE" "$BIN" "$SECONDS_PER")")
    echo "round $round/$ROUNDS: openssl speed" >&2
    openssl_runs+=("$(openssl_once)")
    echo "round $round/$ROUNDS: libcrypto floor" >&2
    # shellcheck disable=SC2046  # two numbers, split on purpose
    floor_runs+=("$(pin "$CORE" "$FLOOR_DIR/jose_floor" "$SECONDS_PER" $(input_lengths "${authflow_runs[0]}"))")
    echo "round $round/$ROUNDS: pyjwt" >&2
    pyjwt_runs+=("$(pin "$CORE" "$PYTHON" pyjwt_bench.py "$SECONDS_PER")")
done

output=$("$PYTHON" - "$ROUNDS" "$LOAD_BEFORE" "$(machine_load)" "${authflow_runs[@]}" "${openssl_runs[@]}" "${pyjwt_runs[@]}" "${floor_runs[@]}" <<'PY'
import json, os, sys
rounds = int(sys.argv[1])
load = {"before": sys.argv[2], "after": sys.argv[3]}
runs = [json.loads(text) for text in sys.argv[4:]]
tools = {"authflow": runs[0:rounds], "openssl": runs[rounds:2 * rounds], "pyjwt": runs[2 * rounds:3 * rounds],
         "floor": runs[3 * rounds:4 * rounds]}
operations = ["es256_sign", "es256_verify", "rs256_verify"]
best = {op: {tool: max(r[op] for r in results) for tool, results in tools.items()} for op in operations}
targets = {"es256_sign": (0.93, None), "es256_verify": (0.93, 1.3), "rs256_verify": (0.93, 2.0)}
print(f"{'operation':<14}{'authflow':>10}{'floor':>10}{'openssl':>10}{'pyjwt':>10}{'÷openssl':>10}{'target':>8}"
      f"{'÷floor':>8}{'floor÷openssl':>15}{'÷pyjwt':>8}{'target':>8}")
for op in operations:
    row = best[op]
    vs_openssl = row["authflow"] / row["openssl"] if row["openssl"] else 0
    vs_floor = row["authflow"] / row["floor"] if row["floor"] else 0
    floor_vs_openssl = row["floor"] / row["openssl"] if row["openssl"] else 0
    vs_pyjwt = row["authflow"] / row["pyjwt"] if row["pyjwt"] else 0
    t_openssl, t_pyjwt = targets[op]
    print(f"{op:<14}{row['authflow']:>10}{row['floor']:>10}{row['openssl']:>10}{row['pyjwt']:>10}{vs_openssl:>10.2f}"
          f"{'≥' + str(t_openssl):>8}{vs_floor:>8.2f}{floor_vs_openssl:>15.2f}{vs_pyjwt:>8.2f}"
          f"{('≥' + str(t_pyjwt)) if t_pyjwt else '-':>8}")
print("(ops/s, best of %d rounds, one core; floor: only the OpenSSL calls of AuthFlow's path, the hash of the "
      "signing input included, so authflow ÷ floor is the share left to AuthFlow's own code; load average %s "
      "before, %s after)" % (rounds, load["before"], load["after"]))
result = {"benchmark": "jose", "unit": "ops/s", "rounds": rounds, "load": load, "best": best}
results_dir = os.environ.get("AUTHFLOW_BENCH_RESULTS") or "results"
os.makedirs(results_dir, exist_ok=True)
with open(os.path.join(results_dir, "jose.json"), "w") as out:
    json.dump(result, out, indent=1)
print(json.dumps(result))
PY
)
"$PYTHON" report.py >&2
printf '%s\n' "$output"
