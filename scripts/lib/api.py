#!/usr/bin/env python3
"""The public API listing of the library modules, from their symbol graphs (scripts/api.sh drives it).

  api.py modules < dump-package.json         the modules whose API is listed, one a line
  api.py write --graphs DIR --modules M...   writes api/<Module>.txt and the counts of docs/public-api.md
  api.py check --graphs DIR --modules M...   compares a fresh listing (in --out) with api/ and the docs

A line of api/<Module>.txt is one declaration, conformance or re-export, its fields separated by two spaces:

  MODULE  KIND  PATH  DECLARATION[  (requirement|optional requirement|default implementation)]

  AuthFlow  struct  AccountRules  public struct AccountRules
  AuthFlow  method  AccountRules.decide(_:)  public func decide(_ situation: AccountSituation) -> AccountDecision
  AuthFlow  conformance  AccountDecision  extension AccountDecision: Swift.Hashable
  AuthFlowServer  property  AuthFlow.Configuration.server  public var server: ServerSettings? { get set }
  AuthFlowServer  reexport  AuthFlow  @_exported public import AuthFlow

KIND is the symbol graph's kind without `swift.` (`type.method` is a static or class method). PATH is the
symbol's path in its module; a member of an extension of another module's type (the `Module@Other.symbols.json`
graphs) is prefixed with that module. A member of an extension with a `where` clause carries it after its
declaration. Lines are sorted by path (a type, then its members), then kind and declaration: deterministic,
without source locations or USRs.

Left out: symbols that are not public or open (the graphs are extracted with `--minimum-access-level public`,
so `package` and internal ones are not there), `@_spi` symbols, anything with a component starting with `_`,
members synthesized from protocol extensions (`--skip-synthesized-members`), and the conformances every type
has implicitly (`Copyable`, `Escapable`, and `SendableMetatype`, which `Sendable` implies).

Re-exports (`@_exported import`) are not in symbol graphs; they are read from the module's sources, because
removing one breaks the packages that rely on it.
"""

import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys

API_DIR = "api"
DOC = "docs/public-api.md"
BEGIN = "<!-- api-counts:begin -->"
END = "<!-- api-counts:end -->"
SEP = "  "
IMPLICIT_CONFORMANCES = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype"}
# Modules whose names are left out of conformances (`Sendable`, `Actor`), with the listed module's own.
IMPLICIT_MODULES = ("Swift", "_Concurrency")
MARKERS = {
    "requirementOf": "(requirement)",
    "optionalRequirementOf": "(optional requirement)",
    "defaultImplementationOf": "(default implementation)",
}
REEXPORT = re.compile(r"^\s*@_exported\s+(?:public\s+)?import\s+(?:\w+\s+)?([A-Za-z_][\w.]*)\s*$")


def library_modules(package):
    """The targets of the library products: not the C modules (system libraries, C* targets) nor test support."""
    kinds = {t["name"]: t for t in package["targets"]}
    names = set()
    for product in package["products"]:
        if "library" not in product["type"]:
            continue
        for name in product["targets"]:
            target = kinds.get(name, {})
            if target.get("type") != "regular" or re.match(r"C[A-Z]", name):
                continue
            if "TestSupport" in name or (target.get("path") or "").startswith("Tests"):
                continue
            names.add(name)
    return sorted(names)


def fragments(parts):
    return re.sub(r"\s+", " ", "".join(p["spelling"] for p in parts or [])).strip()


def constraint(c):
    return "%s %s %s" % (c["lhs"], "==" if c["kind"] == "sameType" else ":", c["rhs"])


def hidden(components):
    return any(c.startswith("_") for c in components)


class Names:
    """Module-qualified names of the symbols of every graph, for the protocols and types relationships name."""

    def __init__(self, graphs):
        self.paths = {}
        for graph in graphs:
            module = graph["module"]["name"]
            for symbol in graph["symbols"]:
                self.paths.setdefault(symbol["identifier"]["precise"], [module] + symbol["pathComponents"])
        self.demangled = {}

    def components(self, usr, fallback=None):
        if usr in self.paths:
            return self.paths[usr]
        if fallback:
            return fallback.split(".")
        # A type of a module whose graph is not here (an extension of a standard library type): demangle its USR.
        if usr not in self.demangled:
            name = usr
            if usr.startswith("s:"):
                try:
                    out = subprocess.run(["swift", "demangle", "--compact", "$s" + usr[2:]],
                                         capture_output=True, text=True, check=True).stdout.strip()
                    name = out or usr
                except (OSError, subprocess.CalledProcessError):
                    pass
            self.demangled[usr] = name
        return self.demangled[usr].split(".")


def supertypes(module, rels, names):
    """The protocols and superclass of a type, by relationship: [(kind, name, where clause)], implied ones dropped."""
    named = []
    for rel in rels:
        target = ".".join(names.components(rel["target"], rel.get("targetFallback")))
        named.append((rel, target))
    implied = {target for _, target in named}
    result = []
    for rel, target in named:
        if target in IMPLICIT_CONFORMANCES and not (
                target == "Swift.SendableMetatype" and "Swift.Sendable" not in implied):
            continue
        owner, _, name = target.partition(".")
        if hidden(name.split(".")):
            continue
        if owner in IMPLICIT_MODULES + (module,):
            target = name
        where = ", ".join(constraint(c) for c in rel.get("swiftConstraints") or [])
        entry = ("superclass" if rel["kind"] == "inheritsFrom" else "conformance", target, where)
        if entry not in result:  # a conformance inherited through two protocols is listed twice
            result.append(entry)
    return sorted(result, key=lambda e: (e[0] != "superclass", e[1], e[2]))


def graph_lines(module, graph, names):
    lines = []
    symbols = {s["identifier"]["precise"]: s for s in graph["symbols"]}
    markers = collections.defaultdict(set)
    inherits = collections.defaultdict(list)
    for rel in graph["relationships"]:
        if rel["kind"] in MARKERS:
            markers[rel["source"]].add(MARKERS[rel["kind"]])
        elif rel["kind"] in ("conformsTo", "inheritsFrom"):
            inherits[rel["source"]].append(rel)

    def path_of(symbol):
        components = list(symbol["pathComponents"])
        extended = (symbol.get("swiftExtension") or {}).get("extendedModule")
        if extended and extended != module:
            components.insert(0, extended)
        return components

    def public(symbol):
        return symbol.get("accessLevel") in ("public", "open") and not hidden(symbol["pathComponents"])

    for usr, symbol in symbols.items():
        if not public(symbol) or "::SYNTHESIZED::" in usr:
            continue
        components = path_of(symbol)
        kind = symbol["kind"]["identifier"].removeprefix("swift.")
        if kind == "extension":
            continue
        declaration = "%s %s" % (symbol["accessLevel"], fragments(symbol["declarationFragments"]))
        # A type's superclass and unconditional conformances are on its line, as in `struct T: Equatable`
        # (a protocol's declaration already lists what it refines).
        unconditional = [name for _, name, where in supertypes(module, inherits.get(usr, []), names) if not where]
        if unconditional and kind != "protocol":
            head, generic_where, tail = declaration.partition(" where ")
            declaration = head + ": " + ", ".join(unconditional) + generic_where + tail
        extension = symbol.get("swiftExtension") or {}
        where = [constraint(c) for c in extension.get("constraints") or []
                 if not (c["lhs"] == "Self" and c["kind"] == "conformance"
                         and c["rhs"] == symbol["pathComponents"][0])]
        if where and " where " not in declaration:
            declaration += " where " + ", ".join(where)
        fields = [module, kind, ".".join(components), declaration] + sorted(markers.get(usr, ()))
        lines.append((components, 0, fields))

    # Conditional conformances, and conformances this module adds to another module's types, have lines of their own.
    for source, rels in inherits.items():
        if source in symbols:
            if not public(symbols[source]):
                continue
            components = path_of(symbols[source])
        else:
            components = names.components(source)
            if hidden(components[1:]):
                continue
        for kind, target, where in supertypes(module, rels, names):
            if source in symbols and (not where or symbols[source]["kind"]["identifier"] == "swift.protocol"):
                continue
            declaration = "extension %s: %s" % (".".join(components), target)
            if where:
                declaration += " where " + where
            lines.append((components, 1, [module, kind, ".".join(components), declaration]))
    return lines


def reexport_lines(module):
    lines = []
    for path in sorted(glob.glob(os.path.join("Sources", module, "**", "*.swift"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            for text in f:
                match = REEXPORT.match(text)
                if match:
                    lines.append(([], 0, [module, "reexport", match.group(1), text.strip()]))
    return lines


def listing(module, graph_dir, graphs, names):
    main = os.path.join(graph_dir, module + ".symbols.json")
    files = [main] + sorted(glob.glob(os.path.join(graph_dir, glob.escape(module) + "@*.symbols.json")))
    lines = []
    for path in files:
        lines += graph_lines(module, graphs[path], names)
    lines += reexport_lines(module)
    # Re-exports first, then by path (a type, then its members), kind and declaration.
    lines.sort(key=lambda line: (line[2][1] != "reexport", line[0], line[1], line[2]))
    return [SEP.join(fields) for _, _, fields in lines]


def load_graphs(graph_dir, modules, log):
    missing = [m for m in modules if not os.path.isfile(os.path.join(graph_dir, m + ".symbols.json"))]
    failed = sorted(set(re.findall(r"Failed to emit symbol graph for '(\w+)'", log)) & set(modules))
    if missing or failed:
        sys.stderr.write(log)
        sys.exit("api.sh: no symbol graph for %s in %s" % (", ".join(sorted(set(missing + failed))), graph_dir))
    graphs = {}
    for path in sorted(glob.glob(os.path.join(graph_dir, "*.symbols.json"))):
        with open(path, encoding="utf-8") as f:
            graphs[path] = json.load(f)
    return graphs, Names(graphs.values())


def write_listing(directory, modules, graph_dir, graphs, names):
    os.makedirs(directory, exist_ok=True)
    result = {}
    for module in modules:
        lines = listing(module, graph_dir, graphs, names)
        result[module] = lines
        with open(os.path.join(directory, module + ".txt"), "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
    return result


def read_listing(directory):
    result = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.txt"))):
        with open(path, encoding="utf-8") as f:
            result[os.path.basename(path)[:-4]] = f.read().splitlines()
    return result


TYPE_KINDS = {"struct", "class", "enum", "protocol", "actor", "typealias", "macro"}
COLUMNS = ("declarations", "top-level types", "re-exports")


def counts(lines):
    """(declarations, of which top-level types, re-exports): every line but a re-export is a declaration."""
    fields = [line.split(SEP) for line in lines]
    reexports = sum(1 for f in fields if f[1] == "reexport")
    types = sum(1 for f in fields if f[1] in TYPE_KINDS and "." not in f[2])
    return len(lines) - reexports, types, reexports


def totals(result):
    return [sum(column) for column in zip(*(counts(lines) for lines in result.values()))]


def counts_section(result):
    """The generated part of docs/public-api.md: the modules and the size of their API."""
    out = [BEGIN,
           "<!-- Generated by `bash scripts/api.sh --write` from api/<Module>.txt; do not edit by hand. -->",
           "",
           "| Module | Declarations | Top-level types | Re-exports |",
           "| --- | ---: | ---: | ---: |"]
    for module in sorted(result):
        out.append("| `%s` | %d | %d | %d |" % ((module,) + counts(result[module])))
    out.append("| **%d modules** | **%d** | **%d** | **%d** |" % tuple([len(result)] + totals(result)))
    out.append(END)
    return "\n".join(out)


def doc_with_counts(result):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        sys.exit("api.sh: %s has no %s … %s section" % (DOC, BEGIN, END))
    return text, text[:start] + counts_section(result) + text[end + len(END):]


def print_counts(result):
    width = max(len(m) for m in result) + 2
    print("%-*s %12s %15s %10s" % ((width, "module") + COLUMNS))
    for module in sorted(result):
        print("%-*s %12d %15d %10d" % ((width, module) + counts(result[module])))
    print("%-*s %12d %15d %10d" % tuple([width, "total"] + totals(result)))


def multiset_difference(a, b):
    return sorted((collections.Counter(a) - collections.Counter(b)).elements())


def check(fresh, baseline):
    added, removed = {}, {}
    for module in sorted(set(fresh) | set(baseline)):
        new, old = fresh.get(module, []), baseline.get(module, [])
        if new != old:
            plus, minus = multiset_difference(new, old), multiset_difference(old, new)
            if plus:
                added[module] = plus
            if minus:
                removed[module] = minus
            if not plus and not minus:  # same lines, another order: the file was edited by hand
                removed[module] = ["(%s/%s.txt is not in the order scripts/api.sh writes)" % (API_DIR, module)]
    return added, removed


def report(title, sign, changes):
    print(title)
    for module, lines in changes.items():
        print("  %s/%s.txt (%d):" % (API_DIR, module, len(lines)))
        for line in lines:
            print("    %s %s" % (sign, line))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["modules", "write", "check"])
    parser.add_argument("--graphs")
    parser.add_argument("--log")
    parser.add_argument("--out")
    parser.add_argument("--modules", nargs="*", default=[])
    args = parser.parse_args()

    if args.mode == "modules":
        print("\n".join(library_modules(json.load(sys.stdin))))
        return 0

    log = ""
    if args.log:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            log = f.read()
    graphs, names = load_graphs(args.graphs, args.modules, log)

    if args.mode == "write":
        for stale in set(read_listing(API_DIR)) - set(args.modules):
            os.remove(os.path.join(API_DIR, stale + ".txt"))
        result = write_listing(API_DIR, args.modules, args.graphs, graphs, names)
        old, new = doc_with_counts(result)
        if old != new:
            with open(DOC, "w", encoding="utf-8") as f:
                f.write(new)
        print_counts(result)
        print("api.sh: wrote %s/<Module>.txt for %d modules and the counts of %s" % (API_DIR, len(result), DOC))
        return 0

    fresh = write_listing(args.out, args.modules, args.graphs, graphs, names)
    added, removed = check(fresh, read_listing(API_DIR))
    old, new = doc_with_counts(fresh)
    if added:
        report("api.sh: public API added without updating the baseline:", "+", added)
    if removed:
        report("api.sh: public API removed or changed without updating the baseline:", "-", removed)
    if old != new:
        print("api.sh: the counts in %s (between %s and %s) are not those of the listing" % (DOC, BEGIN, END))
    if added or removed or old != new:
        print("If the change is intended, accept it with `bash scripts/api.sh --write` and commit %s/ and %s"
              " (the diff is the API change to review)." % (API_DIR, DOC))
        return 1
    print_counts(fresh)
    print("api.sh: the public API matches the baseline in %s/" % API_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main())
