#!/usr/bin/env bash
# The project cites only its own documents and public sources: no file of the sources, the tests, docs/, the
# examples, the benchmarks, the fuzz harnesses, the scripts or the top-level Markdown may name a design or
# research note kept outside the repository (DESIGN.md or "DESIGN §", PROVIDERS.md, PROVIDERS-ADDENDUM,
# OIDC-RP-TESTS, STYLE.md) or a path into a folder beside it (../shared). A fact such a note held belongs in
# docs/ (providers.md for provider facts, with the provider's public source; server.md, configuration.md,
# architecture.md or threat-model.md for the project's own contracts), and the comment cites that page.
# Prints every offending line as file:line: text and exits 1; exits 0 when there is none.
set -euo pipefail
cd "$(dirname "$0")/.."

paths=(Sources Tests docs examples Benchmarks Fuzz Plugins scripts
    README.md CONTRIBUTING.md SECURITY.md CHANGELOG.md BENCHMARKS.md)
# `PROVIDERS` alone is a legitimate identifier (the e2e harness's provider list); only the notes' file names
# and section marks are refused. This script names the patterns, so it is not searched itself.
pattern='DESIGN(\.md|[[:space:]]*§)|PROVIDERS(-ADDENDUM|\.md|[[:space:]]*§)|OIDC-RP-TESTS|STYLE\.md|(\.\./|/work/)shared([/"'"'"'`)[:space:]]|$)'
self="scripts/check-references.sh"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # Tracked and new files alike (not ignored build output), so a reference is caught before it is committed.
    files() { git ls-files -z --cached --others --exclude-standard -- "${paths[@]}"; }
else
    files() { find "${paths[@]}" -name .build -prune -o -type f -print0 2>/dev/null; }
fi

found=$(files | grep -zv -x -- "$self" | xargs -0 -r grep -nIE -- "$pattern" || true)
if [[ -n "$found" ]]; then
    echo "$found"
    echo "check-references: the lines above name documents outside the repository; cite docs/ and public" \
        "sources instead (scripts/check-references.sh)" >&2
    exit 1
fi
