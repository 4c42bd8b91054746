#!/usr/bin/env bash
# Builds every libFuzzer harness of the Fuzz/ package and runs each for SECONDS (default 60) on its seed
# corpus (Fuzz/Corpus/<harness>, read-only; new inputs go to Fuzz/.fuzz-work). Any crash, leak or timeout
# fails the script and leaves its input in Fuzz/.fuzz-work/artifacts/. Usage: scripts/fuzz.sh [SECONDS] [HARNESS...]
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"
seconds="${1:-60}"
shift || true
harnesses=("$@")
if [ "${#harnesses[@]}" -eq 0 ]; then
    harnesses=(FuzzJWT FuzzJSON FuzzJWKS FuzzCBOR FuzzConfiguration FuzzCallback FuzzCookie FuzzAppleUser FuzzNotification
        FuzzFlowCookie FuzzRedisReply FuzzSignedRequest FuzzSecurityEvent FuzzLogoutToken
        FuzzNativeSignIn FuzzForwardAuth FuzzTraceparent)
fi
# -parse-as-library: libFuzzer supplies main(). -enable-testing: the harnesses that fuzz a `package` or internal
# parser directly (the sign-in state machine's callback handling, the flow record's seal, CBOR, the cookie name
# list, Redis replies, trace context) import their module with `@testable`. (`--sanitize=fuzzer` makes SwiftPM link
# libFuzzer; the -Xswiftc flag instruments.)
build=(swift build -c release --scratch-path .build-fuzz --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
    -Xswiftc -parse-as-library -Xswiftc -enable-testing)
for harness in "${harnesses[@]}"; do
    echo "==> building $harness"
    "${build[@]}" --product "$harness"
done
bin="$("${build[@]}" --show-bin-path)"
mkdir -p .fuzz-work/artifacts
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export LSAN_OPTIONS="suppressions=$PWD/lsan.supp:print_suppressions=0"
status=0
for harness in "${harnesses[@]}"; do
    mkdir -p ".fuzz-work/$harness"
    echo "==> fuzzing $harness for ${seconds}s"
    if ! "$bin/$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix=".fuzz-work/artifacts/$harness-" ".fuzz-work/$harness" "Corpus/$harness" \
        > ".fuzz-work/$harness.log" 2>&1; then
        echo "fuzz: $harness failed; see Fuzz/.fuzz-work/$harness.log" >&2
        tail -40 ".fuzz-work/$harness.log" >&2
        status=1
    fi
    grep -E "^stat::number_of_executed_units|^#[0-9]+ +DONE" ".fuzz-work/$harness.log" | tail -2 || true
done
exit "$status"
