#!/usr/bin/env bash
# Builds the DocC documentation of every library module, offline, with the toolchain's `docc`:
#   1. symbol graphs from `swift build -Xswiftc -emit-symbol-graph` (its own scratch directory, so the
#      extra compiler flags do not invalidate the ordinary build in .build);
#   2. `docc convert` of Sources/<Module>/<Module>.docc with that module's graphs
#      into .build/docs/<Module>.doccarchive.
# Fails when a library product has no catalog, and on any DocC warning (unresolved links included).
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=".build/docs-build"
graphs="$PWD/$scratch/symbol-graphs"
output=".build/docs"

# Every library product of Package.swift is documented.
mapfile -t modules < <(sed -n 's/^ *\.library(name: "\([A-Za-z0-9_]*\)".*/\1/p' Package.swift)
if [ "${#modules[@]}" -eq 0 ]; then
    echo "docs.sh: expected library products in Package.swift, found none" >&2
    exit 1
fi
missing=()
for module in "${modules[@]}"; do
    [ -f "Sources/$module/$module.docc/$module.md" ] || missing+=("Sources/$module/$module.docc/$module.md")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "docs.sh: every library module needs a DocC catalog with a landing page; missing: ${missing[*]}" >&2
    exit 1
fi

echo "==> symbol graphs (swift build --scratch-path $scratch)"
rm -rf "$graphs"
mkdir -p "$graphs"
swift build --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"

mkdir -p "$output"
log="$PWD/$scratch/docc.log"
failed=()
for module in "${modules[@]}"; do
    # A module's graphs: its own symbols and its extensions of other modules' types (Module@Other).
    module_graphs="$PWD/$scratch/graphs-by-module/$module"
    rm -rf "$module_graphs"
    mkdir -p "$module_graphs"
    found=0
    for file in "$graphs/$module.symbols.json" "$graphs/$module@"*.symbols.json; do
        if [ -f "$file" ]; then
            cp "$file" "$module_graphs/"
            found=1
        fi
    done
    if [ "$found" -eq 0 ]; then
        echo "docs.sh: no symbol graph for $module in $graphs" >&2
        failed+=("$module")
        continue
    fi
    rm -rf "$output/$module.doccarchive"
    echo "==> docc convert $module"
    if ! docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$module_graphs" \
        --output-path "$output/$module.doccarchive" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.authflow.$module" \
        --fallback-default-module-kind "Framework" \
        --diagnostic-level warning \
        --warnings-as-errors >"$log" 2>&1; then
        cat "$log" >&2
        failed+=("$module")
        continue
    fi
    # `--warnings-as-errors` covers DocC's own diagnostics; anything else that reads as a warning fails too.
    if grep -qi "warning:" "$log"; then
        cat "$log" >&2
        failed+=("$module")
    fi
done

if [ "${#failed[@]}" -gt 0 ]; then
    echo "docs.sh: documentation with warnings or errors: ${failed[*]}" >&2
    exit 1
fi
echo "docs.sh: ${#modules[@]} archives in $output: ${modules[*]}"
