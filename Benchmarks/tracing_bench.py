#!/usr/bin/env python3
"""What OpenTelemetry tracing costs a sign-in (docs/tracing.md): three `authflow serve` instances on one
standalone `authflow sandbox`, SQLite stores, one driver client, the whole sign-ins of signin_bench.py:

- `off`: no `server.tracing`;
- `receiver`: spans exported to a live OTLP/HTTP receiver (a small HTTP server in this process answering 200);
- `down`: spans exported to a collector that is down (a loopback port nothing listens on: every export fails).

Reports sign-ins per second and the app process's CPU per sign-in for each (best of R rounds, the three
interleaved within a round). Run by Benchmarks/tracing.sh; prints a table and one JSON object on its last line
(also written to Benchmarks/results/tracing.json).
"""
from __future__ import annotations

import argparse
import http.server
import json
import socket
import threading
import time

from benchlib import (CLIENT_CORE, SERVER_CORE, Browser, Processes, driver_cores, free_port, log, machine_load,
                      pin_driver, start_authflow, start_sandbox, write_result)
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--count", type=int, default=300, help="sign-ins per configuration and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pin_driver()
    load_before = machine_load()
    receiver = Receiver()
    down = f"http://127.0.0.1:{closed_port()}/v1/traces"
    configurations = {
        "off": None,
        "receiver": {"endpoint": receiver.url, "service_name": "authflow-bench"},
        "down": {"endpoint": down, "service_name": "authflow-bench", "timeout": "2s"},
    }
    with Processes() as processes:
        ports = {name: free_port() for name in configurations}
        sandbox = start_sandbox(
            processes, args.authflow,
            [f"http://127.0.0.1:{port}/auth/{{provider}}/callback" for port in ports.values()], core=CLIENT_CORE)
        apps = {}
        for name, tracing in configurations.items():
            extra = {"tracing": tracing} if tracing else None
            child, url = start_authflow(processes, args.authflow, sandbox, "sqlite", f"authflow-{name}",
                                        port=ports[name], server_extra=extra)
            apps[name] = (f"{url}/auth/google/login?return_to=/", f"{url}/auth/check", [child.pid])
        best: dict[str, dict] = {}
        offset = 0
        for round_number in range(1, args.rounds + 1):
            for name, (login_url, check_url, pids) in apps.items():
                log(f"round {round_number}/{args.rounds}: tracing {name}, {args.count} sign-ins")
                offset += args.count + 1
                run = measure(lambda: Browser(sandbox), login_url, check_url, pids, args.count, offset)
                if name not in best or run["cpu_ms_per_signin"] < best[name]["cpu_ms_per_signin"]:
                    best[name] = run
        # The exporter sends every second: wait for the receiving instance's spans before stopping it.
        deadline = time.monotonic() + 30
        while receiver.exports == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
    if receiver.exports == 0:
        raise RuntimeError("the receiver got no export: tracing did not run")

    print(f"{'tracing':<12}{'sign-ins/s':>12}{'CPU ms/sign-in':>16}{'user':>8}{'system':>8}")
    for name, run in best.items():
        print(f"{name:<12}{run['signins_per_s']:>12.1f}{run['cpu_ms_per_signin']:>16.3f}"
              f"{run['user_ms_per_signin']:>8.3f}{run['system_ms_per_signin']:>8.3f}")
    load = {"before": load_before, "after": machine_load()}
    print(f"(best of {args.rounds} rounds of {args.count}; {receiver.exports} exports reached the receiver; apps on "
          f"core {SERVER_CORE}, sandbox on core {CLIENT_CORE}, driver on core {driver_cores()}; load average "
          f"{load['before']} before, {load['after']} after)")
    result = {
        "benchmark": "tracing", "count": args.count, "rounds": args.rounds, "load": load,
        "exports_received": receiver.exports,
        "configurations": {name: {key: round(value, 3) for key, value in run.items()} for name, run in best.items()},
    }
    write_result("tracing", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
