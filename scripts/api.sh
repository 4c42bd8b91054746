#!/usr/bin/env bash
# The public API of every library module, listed from its symbol graph and compared with the committed baseline
# in api/<Module>.txt, so that a change to the public API is a visible decision (docs/public-api.md).
#
#   bash scripts/api.sh --check   regenerate the listing into a temporary directory and compare it with api/ and
#                                 the counts of docs/public-api.md: prints what was added and removed, exit 1
#   bash scripts/api.sh --write   accept the current API: rewrite api/<Module>.txt and the counts of the docs
#
# The modules are the targets of the library products of `swift package dump-package` (not the C modules nor
# the test support). The graphs come from `swift package dump-symbol-graph`, which reuses the ordinary debug
# build in .build (after `swift build` it only runs swift-symbolgraph-extract, a few seconds) and writes them to
# .build/<triple>/symbolgraph. The line format is described in scripts/lib/api.py.
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-}"
case "$mode" in
--check | --write) ;;
*)
    echo "usage: bash scripts/api.sh --check | --write" >&2
    exit 2
    ;;
esac

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

swift package dump-package >"$tmp/package.json"
mapfile -t modules < <(python3 scripts/lib/api.py modules <"$tmp/package.json")
if [ "${#modules[@]}" -eq 0 ]; then
    echo "api.sh: expected library products in Package.swift, found none" >&2
    exit 1
fi

# dump-symbol-graph also tries the test-discovery modules (AuthFlowPackageTests, which a plain build does not
# produce) and exits 1 for them; api.py fails instead when a listed module has no graph or its extraction failed.
swift package dump-symbol-graph --skip-synthesized-members --minimum-access-level public >"$tmp/dump.log" 2>&1 || true
graphs="$(sed -n 's/^Files written to //p' "$tmp/dump.log" | tail -n 1)"
if [ -z "$graphs" ] || [ ! -d "$graphs" ]; then
    cat "$tmp/dump.log" >&2
    echo "api.sh: swift package dump-symbol-graph wrote no symbol graphs" >&2
    exit 1
fi

python3 scripts/lib/api.py "${mode#--}" --graphs "$graphs" --log "$tmp/dump.log" --out "$tmp/api" \
    --modules "${modules[@]}"
