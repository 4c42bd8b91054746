#!/usr/bin/env bash
# Compiles every Swift code block of README.md, docs/*.md, the DocC catalogs and the examples' Markdown
# against the freshly built modules, each block as the main.swift of its own module (Swift 6 language mode), with
# the context its `<!-- sample-context … -->` comment declares (see scripts/lib/samples.py).
# Any block that does not compile fails the script, with the file and line of the block.
#
#   scripts/check-samples.sh [--scratch-path DIR]   build with this scratch directory (default: .build)
#   scripts/check-samples.sh --modules DIR          use modules built elsewhere (e.g. by examples/Embedding)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=".build"
modules=""
case "${1:-}" in
    --scratch-path) scratch="$2" ;;
    --modules) modules="$2" ;;
    "") ;;
    *)
        echo "usage: scripts/check-samples.sh [--scratch-path DIR | --modules DIR]" >&2
        exit 2
        ;;
esac

# The library modules the samples import, built as an embedding application would get them.
if [ -z "$modules" ]; then
    swift build --scratch-path "$scratch"
    modules="$(swift build --scratch-path "$scratch" --show-bin-path)/Modules"
fi
if [ ! -d "$modules" ]; then
    echo "check-samples.sh: expected the built modules in $modules, found no such directory" >&2
    exit 1
fi

flags=(-swift-version 6 -I "$modules")
# The C modules the libraries import internally, and their headers' include paths.
for map in Sources/C*/module.modulemap; do
    flags+=(-Xcc "-fmodule-map-file=$PWD/$map")
done
for flag in $(pkg-config --cflags-only-I libcrypto libcurl yaml-0.1 libmicrohttpd sqlite3 libpq 2>/dev/null); do
    flags+=(-Xcc "$flag")
done

output=".build/samples"
rm -rf "$output"
mkdir -p "$output"
files=(README.md docs/*.md Sources/*/*.docc/*.md)
while IFS= read -r file; do files+=("$file"); done < <(
    find examples -name '*.md' -not -path '*/.build/*' | sort)

mapfile -t samples < <(python3 scripts/lib/samples.py "$output" "${files[@]}")
if [ "${#samples[@]}" -eq 0 ]; then
    echo "check-samples.sh: expected Swift blocks in ${files[*]}, found none" >&2
    exit 1
fi

failed=0
for entry in "${samples[@]}"; do
    source_file="${entry%%$'\t'*}"
    origin="${entry#*$'\t'}"
    directory="$(dirname "$source_file")"
    if swiftc "${flags[@]}" -module-name Sample -c "$source_file" -o "$directory/main.o" \
        >"$directory/compile.log" 2>&1; then
        echo "ok    $origin"
    else
        echo "FAIL  $origin (generated: $source_file)"
        sed 's/^/      /' "$directory/compile.log"
        failed=$((failed + 1))
    fi
done

if [ "$failed" -gt 0 ]; then
    echo "check-samples.sh: $failed of ${#samples[@]} samples do not compile" >&2
    exit 1
fi
echo "check-samples.sh: all ${#samples[@]} samples compile"
