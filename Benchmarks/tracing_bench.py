#!/usr/bin/env python3
"""What OpenTelemetry tracing (docs/tracing.md) and the audit log (docs/audit.md) cost: four `authflow serve`
instances on one standalone `authflow sandbox`, SQLite stores, one driver client:

- `off`: no `server.tracing`, no `server.audit_log`;
- `receiver`: spans exported to a live OTLP/HTTP receiver (a small HTTP server in this process answering 200);
- `down`: spans exported to a collector that is down (a loopback port nothing listens on: every export fails);
- `audit`: no tracing, `server.audit_log` writing to a file.

For each: the whole sign-ins of signin_bench.py (sign-ins per second and the app process's CPU per sign-in, best
of R rounds, the configurations interleaved within a round), then `GET /auth/check` with the last session's
cookie under wrk (64 connections, best of R runs of `--seconds`): checks/s, and the server's CPU per check (its
/proc ticks over the wrk run divided by the requests wrk counted), which the receiver sharing the client core
with wrk cannot distort. The goal (issue 39): each option costs at most 5 % of checks/s and of CPU per sign-in
against `off`. Run by Benchmarks/tracing.sh; prints a table and one JSON
object on its last line (also written to Benchmarks/results/tracing.json).
"""
from __future__ import annotations

import argparse
import http.server
import json
import socket
import threading
import time

from benchlib import (CLIENT_CORE, SERVER_CORE, Browser, Processes, cpu_seconds, driver_cores, free_port, log,
                      machine_load, pin_driver, start_authflow, start_sandbox, wrk, write_result)
from signin_bench import measure


class Receiver:
    """Accepts OTLP/HTTP exports and answers 200 with an empty body, counting what arrived."""

    def __init__(self):
        self.exports = 0
        self.bytes = 0
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.exports += 1
                receiver.bytes += len(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/traces"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def audit_events(path) -> int:
    """The sign_in.succeeded events in the audit log so far."""
    if not path.exists():
        return 0
    # A substring, not json.loads per line: the writer may be halfway through the last line.
    return path.read_text().count('"event":"sign_in.succeeded"')


def checks(check_url: str, browser: Browser, seconds: float, pids: list[int]) -> tuple[float, float | None]:
    """`GET /auth/check` with the browser's session cookie under wrk (64 connections); every answer must be 202.
    Returns checks/s and the server's CPU µs per check (`None` when wrk printed no request count)."""
    cookie = browser.session.cookies.get("authflow_session")
    if not cookie:
        raise RuntimeError(f"{check_url}: no session cookie after signing in")
    cpu_before = cpu_seconds(pids)
    run = wrk(check_url, seconds, 64, {"Cookie": f"authflow_session={cookie}"})
    cpu = cpu_seconds(pids) - cpu_before
    if run["non_2xx_3xx"]:
        raise RuntimeError(f"{check_url}: {run['non_2xx_3xx']} checks were not answered 202")
    return run["rps"], cpu * 1e6 / run["requests"] if run["requests"] else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--count", type=int, default=300, help="sign-ins per configuration and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5, help="seconds of wrk per check run")
    args = parser.parse_args()
    pin_driver()
    load_before = machine_load()
    receiver = Receiver()
    down = f"http://127.0.0.1:{closed_port()}/v1/traces"
    with Processes() as processes:
        configurations = {
            "off": None,
            "receiver": {"tracing": {"endpoint": receiver.url, "service_name": "authflow-bench"}},
            "down": {"tracing": {"endpoint": down, "service_name": "authflow-bench", "timeout": "2s"}},
            "audit": {"audit_log": str(processes.directory / "audit.jsonl")},
        }
        ports = {name: free_port() for name in configurations}
        sandbox = start_sandbox(
            processes, args.authflow,
            [f"http://127.0.0.1:{port}/auth/{{provider}}/callback" for port in ports.values()], core=CLIENT_CORE)
        apps = {}
        for name, extra in configurations.items():
            child, url = start_authflow(processes, args.authflow, sandbox, "sqlite", f"authflow-{name}",
                                        port=ports[name], server_extra=extra)
            apps[name] = (f"{url}/auth/google/login?return_to=/", f"{url}/auth/check", [child.pid])
        best: dict[str, dict] = {}
        # The best check run of each, by rate and by CPU per check, each best of R apart from the sign-ins' round.
        checked: dict[str, dict] = {name: {"checks_per_s": 0.0, "cpu_us_per_check": None} for name in apps}
        offset = 0
        for round_number in range(1, args.rounds + 1):
            for name, (login_url, check_url, pids) in apps.items():
                log(f"round {round_number}/{args.rounds}: tracing {name}, {args.count} sign-ins")
                offset += args.count + 1
                browser = Browser(sandbox)
                run = measure(lambda: browser, login_url, check_url, pids, args.count, offset)
                if name not in best or run["cpu_ms_per_signin"] < best[name]["cpu_ms_per_signin"]:
                    best[name] = run
                rate, cpu_us = checks(check_url, browser, args.seconds, pids)
                kept = checked[name]
                kept["checks_per_s"] = max(kept["checks_per_s"], rate)
                if cpu_us is not None and (kept["cpu_us_per_check"] is None or cpu_us < kept["cpu_us_per_check"]):
                    kept["cpu_us_per_check"] = cpu_us
                browser.hang_up()
        for name, kept in checked.items():
            best[name].update(kept)
        # The exporter sends every second: wait for the receiving instance's spans before stopping it.
        deadline = time.monotonic() + 30
        while receiver.exports == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        # The audit writer is off the request path: wait for every measured sign-in's event to reach the file.
        audit_file, expected = processes.directory / "audit.jsonl", args.rounds * args.count
        deadline = time.monotonic() + 30
        while (audit_lines := audit_events(audit_file)) < expected and time.monotonic() < deadline:
            time.sleep(0.05)
    if receiver.exports == 0:
        raise RuntimeError("the receiver got no export: tracing did not run")
    if audit_lines < expected:
        raise RuntimeError(f"the audit log holds {audit_lines} sign_in.succeeded events, expected at least {expected}")

    print(f"{'option':<12}{'sign-ins/s':>12}{'CPU ms/sign-in':>16}{'user':>8}{'system':>8}{'checks/s':>12}"
          f"{'CPU µs/check':>14}")
    for name, run in best.items():
        per_check = "n/a" if run["cpu_us_per_check"] is None else f"{run['cpu_us_per_check']:.1f}"
        print(f"{name:<12}{run['signins_per_s']:>12.1f}{run['cpu_ms_per_signin']:>16.3f}"
              f"{run['user_ms_per_signin']:>8.3f}{run['system_ms_per_signin']:>8.3f}{run['checks_per_s']:>12.0f}"
              f"{per_check:>14}")
    load = {"before": load_before, "after": machine_load()}
    print(f"(best of {args.rounds} rounds of {args.count}; {receiver.exports} exports reached the receiver; apps on "
          f"core {SERVER_CORE}, sandbox on core {CLIENT_CORE}, driver on core {driver_cores()}; load average "
          f"{load['before']} before, {load['after']} after)")
    result = {
        "benchmark": "tracing", "count": args.count, "rounds": args.rounds, "seconds": args.seconds, "load": load,
        "exports_received": receiver.exports, "audit_events": audit_lines,
        "configurations": {name: {key: None if value is None else round(value, 3) for key, value in run.items()}
                           for name, run in best.items()},
    }
    write_result("tracing", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
