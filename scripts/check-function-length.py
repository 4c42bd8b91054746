#!/usr/bin/env python3
"""Lists Swift functions, initializers and closures-as-properties longer than a limit (default 60 lines).

Usage: scripts/check-function-length.py [--limit N] PATH...   (exit status 1 when one is too long)
A function is counted from its declaration line to the line of its closing brace, by brace depth
(braces inside string literals and comments are skipped).
"""
import re
import sys
from pathlib import Path

DECL = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|static|"
                  r"final|override|mutating|nonisolated|convenience|required|class)\s+)*(?:func\s+\S|init[?!]?\s*[(<])")


def strip(line, in_block):
    """The line without comments and string literal contents; whether a block comment is still open."""
    out, i, in_string = [], 0, False
    while i < len(line):
        if in_block:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block = end + 2, False
        elif in_string:
            if line[i] == "\\":
                i += 2
            elif line[i] == '"':
                in_string, i = False, i + 1
            else:
                i += 1
        elif line.startswith("//", i):
            break
        elif line.startswith("/*", i):
            in_block, i = True, i + 2
        elif line[i] == '"':
            in_string, i = True, i + 1
        else:
            out.append(line[i])
            i += 1
    return "".join(out), in_block


def functions(path):
    lines = path.read_text().splitlines()
    in_block, depth, open_functions = False, 0, []
    for number, raw in enumerate(lines, 1):
        code, in_block = strip(raw, in_block)
        if DECL.match(code):
            # A declaration whose body never opened before the next one at its depth had no body
            # (a protocol requirement): it is not a function to measure.
            open_functions = [f for f in open_functions if f[3] or f[2] != depth]
            open_functions.append((number, raw.strip()[:80], depth, False))
        for char in code:
            if char == "{":
                depth += 1
                for index, (start, name, at, opened) in enumerate(open_functions):
                    if not opened and depth == at + 1:
                        open_functions[index] = (start, name, at, True)
            elif char == "}":
                depth -= 1
                open_functions = [f for f in open_functions if f[3] or f[2] <= depth]
                while open_functions and open_functions[-1][3] and depth == open_functions[-1][2]:
                    start, name, _, _ = open_functions.pop()
                    yield start, number - start + 1, name


def main(argv):
    limit, paths = 60, []
    args = iter(argv)
    for arg in args:
        if arg == "--limit":
            limit = int(next(args))
        else:
            paths.append(Path(arg))
    files = [f for p in paths for f in (sorted(p.rglob("*.swift")) if p.is_dir() else [p])]
    longest, failed = [], False
    for file in files:
        for start, length, name in functions(file):
            longest.append((length, f"{file}:{start}", name))
            if length > limit:
                failed = True
                print(f"{file}:{start}: {length} lines (limit {limit}): {name}")
    longest.sort(reverse=True)
    if longest:
        length, where, name = longest[0]
        print(f"longest: {length} lines at {where} ({len(longest)} functions in {len(files)} files)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
