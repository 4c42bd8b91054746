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

# The compiler writes a module's graphs when it compiles the module, so an incremental build leaves the
# graphs of unchanged modules in place; a module without its graph (a fresh checkout, a deleted file) is
# rebuilt from scratch.
build_graphs() {
    mkdir -p "$graphs"
    swift build --scratch-path "$scratch" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
}
echo "==> symbol graphs (swift build --scratch-path $scratch)"
build_graphs
for module in "${modules[@]}"; do
    if [ ! -f "$graphs/$module.symbols.json" ]; then
        echo "==> no symbol graph for $module: rebuilding $scratch from scratch"
        rm -rf "$scratch"
        build_graphs
        break
    fi
done

mkdir -p "$output"
log="$PWD/$scratch/docc.log"
failed=()
for module in "${modules[@]}"; do
    # A module's graphs: its own symbols and its extensions of other modules' types (Module@Other).
    module_graphs="$PWD/$scratch/graphs-by-module/$module"
    rm -rf "$module_graphs"
    mkdir -p "$module_graphs"
    found=0
    main_graph="$graphs/$module.symbols.json"
    for file in "$main_graph" "$graphs/$module@"*.symbols.json; do
        # An extension graph written more than a minute before the module's main graph is left over from an
        # earlier compilation (the extensions it describes are gone).
        if [ -f "$file" ] && [ -f "$main_graph" ] &&
            [ $(($(stat -c %Y "$main_graph") - $(stat -c %Y "$file"))) -le 60 ]; then
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
