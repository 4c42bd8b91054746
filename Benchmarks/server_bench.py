#!/usr/bin/env python3
"""Server throughput: `GET /auth/check` with a session cookie and `GET /auth/google/login`, at 64
connections and (for /auth/check) the latency at one connection, for `authflow serve` with the memory
and the SQLite store, against nginx with one worker answering the same routes with `return 202` and
`return 302` plus a Set-Cookie. Run by Benchmarks/server.sh (which installs and builds what it needs).
With `--floor`, also the HTTP layer alone (Sources/HTTPFloor: the same routes answered with fixed responses,
/auth/check on the immediate path, the login on the task path), which splits AuthFlow's time into the HTTP
layer's and the sign-in server's.

Every server is pinned to one core, wrk (one thread) to another; each measurement is repeated
`--rounds` times, interleaved between the servers, and the best round is kept. Prints a table and one
JSON object on its last line (also written to Benchmarks/results/server.json).
"""
from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from benchlib import (CLIENT_CORE, SERVER_CORE, Browser, Processes, free_port, log, machine_load, pinned,
                      start_authflow, start_nginx, start_sandbox, wait_http, write_result, wrk)

NGINX_SERVER = """
    server {{
        listen 127.0.0.1:{port};
        location = /auth/check {{ return 202; }}
        location = /auth/google/login {{
            add_header Set-Cookie "authflow_flow=bench0123456789abcdef0123456789abcdef; Path=/auth/; Max-Age=600; HttpOnly; SameSite=Lax";
            return 302 "http://127.0.0.1:9/o/oauth2/v2/auth?response_type=code&client_id=bench&state=0123456789abcdef";
        }}
    }}
"""


def nginx_url(processes: Processes) -> str:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    start_nginx(processes, NGINX_SERVER.format(port=port), url + "/auth/check")
    return url


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--baseline", help="another authflow binary, measured in the same run")
    parser.add_argument("--baseline-label", default="baseline")
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stores", default="memory,sqlite")
    parser.add_argument("--floor", help="the HTTPFloor binary of the Benchmarks package")
    args = parser.parse_args()
    stores = args.stores.split(",")
    load_before = machine_load()

    with Processes() as processes:
        builds = {"authflow": args.authflow}
        if args.baseline:
            builds[args.baseline_label] = args.baseline
        ports = {(build, store): free_port() for build in builds for store in stores}
        redirect_uris = [f"http://127.0.0.1:{port}/auth/{{provider}}/callback" for port in ports.values()]
        sandbox = start_sandbox(processes, args.authflow, redirect_uris, core=CLIENT_CORE)
        targets: dict[str, dict] = {"nginx": {"url": nginx_url(processes), "cookie": None}}
        for (build, store), port in ports.items():
            name = f"{build}-{store}"
            _, url = start_authflow(processes, builds[build], sandbox, store, name, port=port)
            browser = Browser(sandbox)
            browser.sign_in(f"{url}/auth/google/login?return_to=/", subject=str(10**20 + port))
            cookie = browser.session.cookies.get("authflow_session")
            if not cookie:
                raise RuntimeError(f"{name}: no session cookie after signing in")
            targets[name] = {"url": url, "cookie": f"authflow_session={cookie}"}
        if args.floor:
            port = free_port()
            floor = processes.start([args.floor, str(port)], "http-floor")
            wait_http(f"http://127.0.0.1:{port}/auth/check", floor)
            targets["http-floor"] = {"url": f"http://127.0.0.1:{port}", "cookie": None}

        measurements = {
            "check_64": ("/auth/check", 64),
            "login_64": ("/auth/google/login?return_to=/", 64),
            "check_1": ("/auth/check", 1),
        }
        best: dict[str, dict[str, dict]] = {name: {} for name in targets}
        for round_number in range(1, args.rounds + 1):
            for key, (path, connections) in measurements.items():
                for name, target in targets.items():
                    log(f"round {round_number}/{args.rounds}: {name} {key}")
                    headers = {"Cookie": target["cookie"]} if target["cookie"] and "check" in key else None
                    run = wrk(target["url"] + path, args.seconds, connections, headers)
                    if run["non_2xx_3xx"]:
                        raise RuntimeError(f"{name} {key}: {run['non_2xx_3xx']} answers were not 2xx/3xx")
                    previous = best[name].get(key)
                    if previous is None or run["rps"] > previous["rps"]:
                        best[name][key] = run

    nginx = best["nginx"]
    rows = []
    print(f"{'server':<22}{'check/s @64':>13}{'÷nginx':>8}{'login/s @64':>13}{'÷nginx':>8}"
          f"{'check µs @1':>13}{'×nginx':>8}")
    for name, results in best.items():
        row = {
            "server": name,
            "check_64_rps": round(results["check_64"]["rps"]),
            "check_64_vs_nginx": round(results["check_64"]["rps"] / nginx["check_64"]["rps"], 3),
            "login_64_rps": round(results["login_64"]["rps"]),
            "login_64_vs_nginx": round(results["login_64"]["rps"] / nginx["login_64"]["rps"], 3),
            "check_1_mean_us": round(results["check_1"]["mean_us"], 1),
            "check_1_vs_nginx": round(results["check_1"]["mean_us"] / nginx["check_1"]["mean_us"], 3),
        }
        rows.append(row)
        print(f"{name:<22}{row['check_64_rps']:>13}{row['check_64_vs_nginx']:>8.2f}{row['login_64_rps']:>13}"
              f"{row['login_64_vs_nginx']:>8.2f}{row['check_1_mean_us']:>13.1f}{row['check_1_vs_nginx']:>8.2f}")
    load = {"before": load_before, "after": machine_load()}
    print(f"(best of {args.rounds} rounds of {args.seconds:g}s; servers on core {SERVER_CORE}, wrk -t1 on core "
          f"{CLIENT_CORE}; goals at 64 connections: starts ÷nginx ≥ 0.5, checks ÷nginx ≥ 0.6; ×nginx ≤ 1.5 at 1; load average "
          f"{load['before']} before, {load['after']} after)")
    result = {"benchmark": "server", "seconds": args.seconds, "rounds": args.rounds, "load": load, "rows": rows}
    write_result("server", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
