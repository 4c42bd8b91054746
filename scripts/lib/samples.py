"""Extracts every Swift code block of the project's Markdown into one compilable file per block.

A block is compiled as the `main.swift` of its own module: top-level code, `try` and `await` are
allowed. Context a block needs but does not show (a variable it uses, a type it extends) is declared
in an HTML comment right before the block, which readers of the rendered page do not see:

    <!-- sample-context
    let cookieHeader = "af_session=…"
    -->
    ```swift
    ...
    ```

The `import` lines of the block and of its context come first in the generated file, then the rest
of the context, then the rest of the block, so the context can use what the block imports.

A block that cannot be compiled here (a `Package.swift` excerpt, code for a framework that cannot be
fetched) says so and why in a comment right before it, `<!-- sample-not-compiled: REASON -->`, which
readers do not see; the reason must not be empty. Every other block is compiled.

Usage: samples.py OUTPUT_DIR FILE...   (prints one line per sample: GENERATED_FILE<TAB>SOURCE:LINE)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CONTEXT_OPEN = "<!-- sample-context"
NOT_COMPILED = re.compile(r"^<!-- sample-not-compiled:\s*(\S.*?)\s*-->$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([A-Za-z0-9_+-]*)\s*$")


class SampleError(Exception):
    pass


def blocks(path: Path):
    """Yields (line number, context lines, code lines) for every ```swift block of `path`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    pending_context: list[str] | None = None
    pending_line = 0
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if stripped.startswith("<!-- sample-not-compiled"):
            if not NOT_COMPILED.match(stripped):
                raise SampleError(f"{path}:{index + 1}: expected '<!-- sample-not-compiled: REASON -->', found {stripped!r}")
            if pending_context is not None:
                raise SampleError(f"{path}:{pending_line}: a sample context must come right before a swift block")
            following = index + 1
            match = FENCE.match(lines[following]) if following < len(lines) else None
            if not match or match.group(3) != "swift":
                raise SampleError(f"{path}:{index + 1}: a sample-not-compiled comment must come right before a swift block")
            fence = match.group(2)
            index = following + 1
            while index < len(lines) and not lines[index].strip().startswith(fence[0] * len(fence)):
                index += 1
            index += 1
            continue
        if stripped.startswith(CONTEXT_OPEN):
            start = index
            rest = stripped[len(CONTEXT_OPEN):]
            context: list[str] = []
            if rest.strip().endswith("-->"):
                body = rest.strip()[:-3].strip()
                if body:
                    context.append(body)
            else:
                if rest.strip():
                    context.append(rest.strip())
                index += 1
                while index < len(lines) and not lines[index].strip().endswith("-->"):
                    context.append(lines[index])
                    index += 1
                if index == len(lines):
                    raise SampleError(f"{path}:{start + 1}: expected '-->' closing the sample context, found none")
                last = lines[index].strip()[:-3]
                if last.strip():
                    context.append(last)
            pending_context = context
            pending_line = start + 1
            index += 1
            continue
        match = FENCE.match(line)
        if match:
            indent, fence, language = match.groups()
            start = index
            index += 1
            code: list[str] = []
            while index < len(lines) and not lines[index].strip().startswith(fence[0] * len(fence)):
                text = lines[index]
                code.append(text[len(indent):] if text.startswith(indent) else text.lstrip())
                index += 1
            if index == len(lines):
                raise SampleError(f"{path}:{start + 1}: expected a closing {fence}, found the end of the file")
            if language == "swift":
                yield start + 1, pending_context or [], code
            elif pending_context is not None:
                raise SampleError(f"{path}:{pending_line}: a sample context must come right before a swift block")
            pending_context = None
            index += 1
            continue
        if stripped and pending_context is not None:
            raise SampleError(f"{path}:{pending_line}: a sample context must come right before a swift block, "
                              f"found text at line {index + 1}")
        index += 1
    if pending_context is not None:
        raise SampleError(f"{path}:{pending_line}: a sample context must come right before a swift block")


IMPORT = re.compile(r"^\s*(@[A-Za-z_]+\s+)*(public |internal )?import\s")


def generated_source(context: list[str], code: list[str]) -> str:
    """The block's and the context's `import` lines first (each once), then the context, then the block."""
    imports: list[str] = []
    for line in code + context:
        if IMPORT.match(line) and line.strip() not in imports:
            imports.append(line.strip())
    context_rest = [line for line in context if not IMPORT.match(line)]
    code_rest = [line for line in code if not IMPORT.match(line)]
    return "\n".join(imports + ["", "// sample context"] + context_rest + ["", "// sample"] + code_rest) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    output = Path(argv[1])
    output.mkdir(parents=True, exist_ok=True)
    count = 0
    try:
        for name in argv[2:]:
            path = Path(name)
            for line, context, code in blocks(path):
                count += 1
                directory = output / f"sample{count:03d}"
                directory.mkdir(parents=True, exist_ok=True)
                (directory / "main.swift").write_text(generated_source(context, code), encoding="utf-8")
                print(f"{directory / 'main.swift'}\t{path}:{line}")
    except SampleError as error:
        print(f"samples.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
