#!/usr/bin/env bash
# The module layers of docs/architecture.md, checked on the target graph Package.swift declares: the core
# (`AuthFlow`), every provider plugin and the store backends reach neither libcurl (`CCurl`) nor libmicrohttpd
# (`CMicroHTTPD`), directly or through another module; the store backends reach no HTTP server; the server and
# `AuthFlowDeployment` reach neither the sandbox, the matrix nor the demo (`AuthFlowDemo`); the HTTP values
# module (`AuthFlowHTTP`) imports no C module; `AuthFlowJSON` depends on no other module; the shared SQL stores
# (`AuthFlowSQL`) reach no database driver, and the core does not reach them. The storage contract
# (`AuthFlowStores`) reaches neither the core, the HTTP client nor the HTTP server, and no C module but OpenSSL
# (through JOSE); the store backends reach the storage contract, never the core (`AuthFlow`), so a change to the
# sign-in flow does not rebuild them. Prints every broken rule with the path that breaks it. Also checks that the
# test targets mirror the library targets (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."

swift package dump-package | python3 -c '
import json, sys

package = json.load(sys.stdin)
edges = {}
for target in package["targets"]:
    names = []
    for dependency in target.get("dependencies", []):
        kind, value = next(iter(dependency.items()))
        names.append(value[0])
    edges[target["name"]] = names

def path_to(start, goal):
    """The first dependency path from start to goal, or None."""
    stack, seen = [[start]], {start}
    while stack:
        path = stack.pop()
        for name in edges.get(path[-1], []):
            if name == goal:
                return path + [name]
            if name not in seen:
                seen.add(name)
                stack.append(path + [name])
    return None

plugins = ["AuthFlowApple", "AuthFlowGoogle", "AuthFlowFacebook", "AuthFlowX", "AuthFlowOIDC", "AuthFlowOAuth2",
           "AuthFlowMicrosoft", "AuthFlowGitHub", "AuthFlowGitLab", "AuthFlowLinkedIn", "AuthFlowSlack", "AuthFlowDiscord",
           "AuthFlowPasskeys", "AuthFlowProviders"]
stores = ["AuthFlowSQL", "AuthFlowSQLite", "AuthFlowPostgres", "AuthFlowRedis"]
rules = [(module, forbidden) for module in ["AuthFlowHTTP", "AuthFlow", "AuthFlowMatrix"] + plugins + stores
         for forbidden in ["CCurl", "CMicroHTTPD", "AuthFlowCurl", "AuthFlowHTTPServer"]]
rules += [(module, forbidden) for module in stores for forbidden in ["AuthFlowServer", "AuthFlowDeployment"]]
# What a production app links (the server and the deployment) reaches no sandbox, matrix or demo.
rules += [(module, forbidden) for module in ["AuthFlowServer", "AuthFlowDeployment"]
          for forbidden in ["AuthFlowSandbox", "AuthFlowMatrix", "AuthFlowDemo"]]
rules += [("AuthFlowHTTP", name) for name in edges if name.startswith("C")]
# JSON and the error-code shape are the bottom of the graph: AuthFlowJSON depends on nothing.
rules += [("AuthFlowJSON", name) for name in edges if name != "AuthFlowJSON"]
rules += [("AuthFlowSQL", name) for name in ["CSQLite", "CPostgres", "CHiredis"]]
# WebAuthn is a foundation module beside JOSE: JSON and JOSE (with OpenSSL) only.
rules += [("AuthFlowWebAuthn", name) for name in edges
          if name not in ("AuthFlowWebAuthn", "AuthFlowJSON", "AuthFlowJOSE", "COpenSSL")]
rules += [("AuthFlow", "AuthFlowSQL")]
# The storage contract sits between the foundation and the core: JSON, JOSE (with OpenSSL) and the HTTP values
# (its blocking threads), never the flow engine, the HTTP client or server, or another C library.
rules += [("AuthFlowStores", name) for name in ["AuthFlow", "AuthFlowCurl", "AuthFlowHTTPServer"]]
rules += [("AuthFlowStores", name) for name in edges if name.startswith("C") and name != "COpenSSL"]
# A store author depends on the contract alone: the backends reach the storage contract, not the core.
rules += [(module, "AuthFlow") for module in stores]

broken = 0
for module, forbidden in rules:
    if module not in edges:
        print(f"check-layers.sh: expected a target named {module} in Package.swift, found none")
        broken += 1
        continue
    path = path_to(module, forbidden)
    if path:
        print(f"check-layers.sh: {module} must not reach {forbidden}, found " + " -> ".join(path))
        broken += 1
# Test targets mirror source targets (docs/testing.md): every library target under Sources/ has a test target
# named after it, and every test target tests a library target, but for the `authflow` tool'"'"'s AuthFlowCLITests
# and the support module'"'"'s AuthFlowTestSupportTests.
kinds = {target["name"]: target["type"] for target in package["targets"]}
paths = {target["name"]: target.get("path") or "" for target in package["targets"]}
libraries = [name for name, kind in kinds.items()
             if kind == "regular" and name.startswith("AuthFlow") and not paths[name].startswith("Tests/")]
tests = [name for name, kind in kinds.items() if kind == "test"]
for name in libraries:
    if name + "Tests" not in tests:
        print(f"check-layers.sh: expected a test target {name}Tests for {name}, found none")
        broken += 1
for name in tests:
    if name[: -len("Tests")] not in libraries and name not in ("AuthFlowCLITests", "AuthFlowTestSupportTests"):
        print(f"check-layers.sh: expected test target {name} to test a library target {name[:-5]}, found none")
        broken += 1
sys.exit(1 if broken else 0)
'
