#!/usr/bin/env bash
# No Swift test sleeps to wait for something: a test waits for the condition it needs (the helpers of
# Tests/Support/AuthFlowTestSupport/Waiting.swift: `waitUntil`, `waitFor`, `eventually`, checked now and then
# and failing only after a generous deadline), moves an injected clock with a manual clock, and a stand-in that
# must hold something open waits on a `Latch` the test opens. So a busy machine cannot fail a test by being slow.
#
# Fails on any call of `Task.sleep`, `Thread.sleep`, `usleep` or `sleep(` (any `…sleep(`: `nanosleep`, a
# clock's `sleep(for:)`, Python's `time.sleep(` in an inline script) in a Swift file under Tests/, outside the
# one waiting helper. Whole-line comments are not code and are skipped. Prints every offending line as
# file:line: text and exits 1; exits 0 when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."

pattern='Task\.sleep|Thread\.sleep|usleep|sleep\('
# The one waiting helper: its pause between two checks of a condition is the only sleep tests may make.
allowed=(
    Tests/Support/AuthFlowTestSupport/Waiting.swift
)
# Stand-ins that must sleep (each with the reason it cannot wait on a signal instead): none.

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Tracked and new files alike (not ignored build output), so a sleep is caught before it is committed.
    files() { git ls-files -z --cached --others --exclude-standard -- 'Tests/*.swift'; }
else
    files() { find Tests -name .build -prune -o -type f -name '*.swift' -print0; }
fi

found=$(files | grep -zv -x -F "${allowed[@]/#/-e}" | xargs -0 -r grep -nIE -- "$pattern" \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
if [[ -n "$found" ]]; then
    echo "$found"
    echo "check-test-sleeps: the lines above sleep in a test; wait for the condition instead (waitUntil, waitFor," \
        "eventually in Tests/Support/AuthFlowTestSupport/Waiting.swift), use a manual clock, or hold a stand-in" \
        "on a Latch (scripts/check-test-sleeps.sh)" >&2
    exit 1
fi
