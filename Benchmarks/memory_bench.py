#!/usr/bin/env python3
"""Memory: the resident set of `authflow serve` (memory store) and of Apache httpd with mod_auth_openidc (one
child, shm session cache; its processes summed), both relying parties of one standalone `authflow sandbox`:

- at rest, after one sign-in;
- with `--sessions` live sessions (default 100,000), made by whole sign-ins (login → sandbox consent →
  callback) from the compiled sign-in driver (Benchmarks/driver/signin_driver.c, `--workers` threads), each
  sign-in a new browser and a new subject (the Python browsers made about 190 sign-ins/s, too slow for the full
  size);
- then, with those sessions, `--connections` idle keep-alive connections (default 10,000): each connection
  sends one request, reads its answer and stays open; the server's open descriptors are counted to show it
  still holds them. (Sessions first: a heap does not always give back what closed connections used.)

RSS is VmRSS from /proc/PID/status; PSS (from /proc/PID/smaps_rollup) counts pages shared between processes
once, which matters for Apache's parent and child sharing the shm cache. Run by Benchmarks/memory.sh (which
raises the open-file limit). Prints a table and one JSON object on its last line (also written to
Benchmarks/results/memory.json).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import time
from pathlib import Path

from benchlib import (CLIENT_CORE, SERVER_CORE, Browser, Processes, descendants, free_port, log, machine_load,
                      pin_driver, start_authflow, start_sandbox, write_result)
from peer_bench import start_apache


def memory_kib(pids: list[int]) -> dict:
    rss = pss = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss += int(line.split()[1])
        rollup = Path(f"/proc/{pid}/smaps_rollup")
        if rollup.exists():
            for line in rollup.read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1])
    return {"rss_kib": rss, "pss_kib": pss}


def open_descriptors(pids: list[int]) -> int:
    return sum(len(os.listdir(f"/proc/{pid}/fd")) for pid in pids)


async def hold_connections(port: int, path: str, count: int, ready: asyncio.Event, release: asyncio.Event) -> int:
    """Opens `count` keep-alive connections, one request and its answer on each, then holds them until
    `release`; returns how many were answered."""
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: keep-alive\r\n\r\n".encode()
    writers = []
    answered = 0
    semaphore = asyncio.Semaphore(200)  # at most 200 connections being opened at once

    async def one() -> None:
        nonlocal answered
        async with semaphore:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 30)
            writers.append(writer)
            writer.write(request)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            if head.startswith(b"HTTP/1.1 "):
                answered += 1
            # The bodies are short; what is left of one stays in the socket's buffer.

    results = await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)
    failures = [result for result in results if isinstance(result, BaseException)]
    if failures:
        log(f"{len(failures)} of {count} connections failed, for example: {failures[0]!r}")
    ready.set()
    await release.wait()
    for writer in writers:
        writer.close()
    return answered


def measure_connections(port: int, path: str, count: int, pids: list[int]) -> dict:
    async def run() -> dict:
        ready, release = asyncio.Event(), asyncio.Event()
        holder = asyncio.create_task(hold_connections(port, path, count, ready, release))
        await ready.wait()
        await asyncio.sleep(1)  # let the server settle with every connection idle
        figures = memory_kib(pids) | {"descriptors": open_descriptors(pids)}
        release.set()
        figures["answered"] = await holder
        return figures

    return asyncio.run(run())


def make_sessions(driver: str, sandbox, app_url: str, login_url: str, count: int, threads: int,
                  subject_base: int) -> int:
    """`count` whole sign-ins by the compiled driver, each from a new browser with a new subject; returns how many
    completed (the callback answered with its redirect)."""
    if count <= 0:
        return 0
    finished = subprocess.run([driver, "--url", app_url, "--sandbox", sandbox.base_url, "--count", str(count),
                               "--threads", str(threads), "--subject-base", str(subject_base), "--login", login_url],
                              capture_output=True, text=True, timeout=3600)
    if finished.returncode != 0:
        raise RuntimeError(f"signin_driver failed ({finished.returncode}): {finished.stderr[-500:]}")
    figures = json.loads(finished.stdout.strip().splitlines()[-1])
    if figures["failures"]:
        log(f"{figures['failures']} of {count} sign-ins failed, for example: {figures['errors'][:2]}")
    return figures["completed"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--connections", type=int, default=10_000, help="idle keep-alive connections")
    parser.add_argument("--sessions", type=int, default=100_000, help="live sessions")
    parser.add_argument("--workers", type=int, default=4, help="sign-in driver threads making the sessions")
    parser.add_argument("--signin-driver", required=True, help="the compiled sign-in driver (memory.sh builds it)")
    parser.add_argument("--peer-sessions", type=int, default=None,
                        help="live sessions for mod_auth_openidc (default: --sessions); its shm cache finds an entry "
                             "by a scan of its slots, so its sign-ins slow down as sessions grow")
    args = parser.parse_args()
    peer_sessions = args.peer_sessions or args.sessions
    pin_driver()
    load_before = machine_load()

    with Processes() as processes:
        authflow_port, apache_port = free_port(), free_port()
        sandbox = start_sandbox(processes, args.authflow,
                                [f"http://127.0.0.1:{authflow_port}/auth/{{provider}}/callback",
                                 f"http://127.0.0.1:{apache_port}/protected/redirect_uri"], core=CLIENT_CORE,
                                # Every sign-in of both servers leaves a code the sandbox remembers for an hour.
                                max_pending=args.sessions + peer_sessions + 10_000)
        # Room for every idle connection from the one client address, kept as long as Apache keeps them.
        limits = {"max_connections": args.connections + 1000, "max_connections_per_client": args.connections + 1000,
                  "idle_timeout": "5m"}
        authflow, authflow_url = start_authflow(processes, args.authflow, sandbox, "memory", "authflow-memory",
                                                port=authflow_port, server_extra={"limits": limits})
        # Slots for every session plus the nonce replay entry mod_auth_openidc keeps for each sign-in.
        apache, apache_url = start_apache(processes, apache_port, sandbox, idle_connections=args.connections,
                                          shm_entries=2 * peer_sessions + 1000)
        servers = {
            "authflow-memory": {"pids": lambda: [authflow.pid], "port": authflow_port, "idle_path": "/healthz",
                                "url": authflow_url, "login": f"{authflow_url}/auth/google/login?return_to=/"},
            "mod_auth_openidc": {"pids": lambda: descendants(apache.pid), "port": apache_port, "idle_path": "/",
                                 "url": apache_url, "login": f"{apache_url}/protected/check"},
        }
        rows = []
        for number, (name, server) in enumerate(servers.items()):
            Browser(sandbox).sign_in(server["login"], subject=str(6 * 10**19 + number))  # warm-up
            time.sleep(0.5)
            pids = server["pids"]()
            rest = memory_kib(pids)
            count = args.sessions if name == "authflow-memory" else peer_sessions
            log(f"{name}: {count} sign-ins from {args.workers} driver threads")
            started = time.monotonic()
            # The warm-up's session is one of the live sessions: a server's memory store keeps at most 100,000
            # spent states per flow lifetime (ten minutes), so a 100,001st sign-in within it is refused (503).
            made = 1 + make_sessions(args.signin_driver, sandbox, server["url"], server["login"], count - 1,
                                     args.workers, 7 * 10**17 + number * 10**9)
            elapsed = time.monotonic() - started
            time.sleep(0.5)
            with_sessions = memory_kib(server["pids"]())
            log(f"{name}: {args.connections} idle keep-alive connections")
            held = measure_connections(server["port"], server["idle_path"], args.connections, server["pids"]())
            row = {
                "server": name, "rest_rss_kib": rest["rss_kib"], "rest_pss_kib": rest["pss_kib"],
                "connections": args.connections, "connections_answered": held["answered"],
                "connections_descriptors": held["descriptors"],
                "connections_rss_kib": held["rss_kib"], "connections_pss_kib": held["pss_kib"],
                "bytes_per_connection": round((held["rss_kib"] - with_sessions["rss_kib"]) * 1024
                                              / max(1, held["answered"])),
                "sessions": made, "sessions_per_s": round((made - 1) / elapsed, 1),
                "sessions_rss_kib": with_sessions["rss_kib"], "sessions_pss_kib": with_sessions["pss_kib"],
                "bytes_per_session": round((with_sessions["rss_kib"] - rest["rss_kib"]) * 1024 / max(1, made - 1)),
            }
            rows.append(row)

    print(f"{'server':<18}{'RSS at rest':>12}{'+ sessions':>12}{'B/session':>10}{'PSS sessions':>14}"
          f"{'+ idle conns':>14}{'B/conn':>8}")
    for row in rows:
        print(f"{row['server']:<18}{row['rest_rss_kib'] / 1024:>10.1f}MB{row['sessions_rss_kib'] / 1024:>10.1f}MB"
              f"{row['bytes_per_session']:>10}{row['sessions_pss_kib'] / 1024:>12.1f}MB"
              f"{row['connections_rss_kib'] / 1024:>12.1f}MB{row['bytes_per_connection']:>8}")
    load = {"before": load_before, "after": machine_load()}
    print(f"({args.connections} idle keep-alive connections, answered and held: "
          + ", ".join(f"{row['server']} {row['connections_answered']} ({row['connections_descriptors']} descriptors open)"
                      for row in rows)
          + "; sessions by whole sign-ins: " + ", ".join(f"{row['server']} {row['sessions']}" for row in rows)
          + f"; RSS of Apache's processes summed, PSS counts their shared pages once; servers on core {SERVER_CORE}, "
          f"sandbox on core {CLIENT_CORE}; load average {load['before']} before, {load['after']} after)")
    result = {"benchmark": "memory", "connections": args.connections, "sessions": args.sessions, "peer_sessions": peer_sessions, "load": load,
              "rows": rows}
    write_result("memory", result)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
