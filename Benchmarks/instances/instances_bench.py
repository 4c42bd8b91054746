#!/usr/bin/env python3
"""`authflow serve` on its shared stores, side by side in one run: `GET /auth/check` with a session cookie,
`GET /auth/google/login` (a sign-in start) and `GET /healthz` (one round trip to each store) at 64
connections, against

- `sqlite`: one instance on the embedded SQLite store;
- `pg+redis`: one instance on PostgreSQL (accounts) + Redis (sessions, spent states);
- `pg+redis via nginx`: that instance behind nginx (the cost of the proxy hop alone);
- `2 × pg+redis via nginx`: two instances on the same PostgreSQL + Redis behind one nginx `upstream`.

Run by Benchmarks/instances/run.sh, which installs what it needs, starts a throwaway PostgreSQL and Redis
and builds the release binary. The AuthFlow instances are pinned to the server core, wrk (one thread) and
nginx (one worker) to the client core; PostgreSQL and Redis are not pinned. Each measurement is repeated
`--rounds` times, interleaved between the targets, and the best round is kept. `server.rate_limits` is off
(the routes are measured, not the limiter). Prints a table and one JSON object on its last line (also
written to Benchmarks/results/instances.json).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchlib import (BENCH_SECRET, CLIENT_CORE, SERVER_CORE, Browser, Processes, free_port, log,  # noqa: E402
                      machine_load, start_nginx, start_sandbox, wait_http, write_result, wrk)

NGINX_UPSTREAMS = """
    upstream two {{
        server 127.0.0.1:{port_a};
        server 127.0.0.1:{port_b};
        keepalive 64;
    }}
    upstream one {{
        server 127.0.0.1:{port_single};
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port_two};
        location / {{
            proxy_pass http://two;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
        }}
    }}
    server {{
        listen 127.0.0.1:{port_one};
        location / {{
            proxy_pass http://one;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
        }}
    }}
"""


def config(directory: Path, name: str, listen_port: int, public_url: str, google: dict, store: dict) -> Path:
    server = {"listen": f"127.0.0.1:{listen_port}", "public_url": public_url, "secret": BENCH_SECRET,
              "allowed_return_to": ["/"], "session_ttl": "8h", "rate_limits": "off"}
    path = directory / f"providers-{name}.yaml"
    path.write_text(yaml.safe_dump({"server": server, "store": store, "providers": {"google": google}},
                                   sort_keys=False))
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--postgres-url", required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    load_before = machine_load()

    with Processes() as processes:
        ports = {name: free_port() for name in ("sqlite", "single", "a", "b", "nginx_one", "nginx_two")}
        public = {
            "sqlite": f"http://127.0.0.1:{ports['sqlite']}",
            "single": f"http://127.0.0.1:{ports['single']}",
            "two": f"http://127.0.0.1:{ports['nginx_two']}",
        }
        sandbox = start_sandbox(processes, args.authflow,
                                [url + "/auth/{provider}/callback" for url in public.values()], core=CLIENT_CORE)
        shared = {"kind": "postgres", "postgres_url": args.postgres_url, "redis_url": args.redis_url}
        instances = {
            "sqlite": (ports["sqlite"], public["sqlite"],
                       {"kind": "sqlite", "path": str(processes.directory / "authflow.sqlite")}),
            "single": (ports["single"], public["single"], shared),
            "a": (ports["a"], public["two"], shared),
            "b": (ports["b"], public["two"], shared),
        }
        for name, (port, public_url, store) in instances.items():
            path = config(processes.directory, name, port, public_url, sandbox.google, store)
            child = processes.start([args.authflow, "serve", "--config", str(path)], f"authflow-{name}")
            wait_http(f"http://127.0.0.1:{port}/healthz", child)
        upstreams = NGINX_UPSTREAMS.format(port_a=ports["a"], port_b=ports["b"], port_single=ports["single"],
                                           port_one=ports["nginx_one"], port_two=ports["nginx_two"])
        start_nginx(processes, upstreams, public["two"] + "/healthz", core=CLIENT_CORE, worker_connections=4096)

        def signed_in_cookie(sign_in_url: str, subject: str) -> str:
            browser = Browser(sandbox)
            browser.sign_in(sign_in_url + "/auth/google/login?return_to=/", subject=subject)
            cookie = browser.session.cookies.get("authflow_session")
            if not cookie:
                raise RuntimeError(f"{sign_in_url}: no session cookie after signing in")
            return f"authflow_session={cookie}"

        single_cookie = signed_in_cookie(public["single"], "30000000000000000001")
        targets = {
            "sqlite": {"url": public["sqlite"], "cookie": signed_in_cookie(public["sqlite"], "30000000000000000002")},
            "pg+redis": {"url": public["single"], "cookie": single_cookie},
            "pg+redis via nginx": {"url": f"http://127.0.0.1:{ports['nginx_one']}", "cookie": single_cookie},
            "2 × pg+redis via nginx": {"url": public["two"],
                                       "cookie": signed_in_cookie(public["two"], "30000000000000000003")},
        }
        measurements = {"check_64": "/auth/check", "login_64": "/auth/google/login?return_to=/",
                        "healthz_64": "/healthz"}
        best: dict[str, dict[str, dict]] = {name: {} for name in targets}
        for round_number in range(1, args.rounds + 1):
            for key, path in measurements.items():
                for name, target in targets.items():
                    log(f"round {round_number}/{args.rounds}: {name} {key}")
                    headers = {"Cookie": target["cookie"]} if key == "check_64" else None
                    run = wrk(target["url"] + path, args.seconds, 64, headers)
                    if run["non_2xx_3xx"]:
                        raise RuntimeError(f"{name} {key}: {run['non_2xx_3xx']} answers were not 2xx/3xx")
                    previous = best[name].get(key)
                    if previous is None or run["rps"] > previous["rps"]:
                        best[name][key] = run

    base = best["sqlite"]
    rows = []
    print(f"{'deployment':<25}{'check/s':>10}{'÷sqlite':>9}{'login/s':>10}{'÷sqlite':>9}{'healthz/s':>11}"
          f"{'÷sqlite':>9}")
    for name, results in best.items():
        row = {"deployment": name}
        for key in measurements:
            row[f"{key}_rps"] = round(results[key]["rps"])
            row[f"{key}_vs_sqlite"] = round(results[key]["rps"] / base[key]["rps"], 3)
            row[f"{key}_median_us"] = results[key]["median_us"]
        rows.append(row)
        print(f"{name:<25}{row['check_64_rps']:>10}{row['check_64_vs_sqlite']:>9.2f}{row['login_64_rps']:>10}"
              f"{row['login_64_vs_sqlite']:>9.2f}{row['healthz_64_rps']:>11}{row['healthz_64_vs_sqlite']:>9.2f}")
    load = {"before": load_before, "after": machine_load()}
    print(f"(requests/s at 64 connections, best of {args.rounds} rounds of {args.seconds:g}s; AuthFlow instances on "
          f"core {SERVER_CORE}, wrk -t1 and nginx on core {CLIENT_CORE}, PostgreSQL and Redis unpinned; /auth/check "
          f"answers from each instance's 1 s session cache after the first read; load average {load['before']} "
          f"before, {load['after']} after)")
    result = {"benchmark": "instances", "seconds": args.seconds, "rounds": args.rounds, "connections": 64,
              "cores": {"authflow": SERVER_CORE, "wrk_and_nginx": CLIENT_CORE}, "load": load, "rows": rows}
    write_result("instances", result)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
