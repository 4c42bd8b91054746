#!/usr/bin/env python3
"""Instruction counts (valgrind --tool=callgrind) of `authflow serve` (SQLite store) for one whole
sign-in, one `GET /auth/check`, one sign-in start (`GET /auth/google/login`) from a browser without cookies and
one from a browser holding four flow cookies (sign-ins begun and not finished): the stable figures to watch for regressions, since wall-clock
numbers on a shared machine are not. Run by Benchmarks/callgrind.sh.

The server runs under callgrind from the start; after warm-up sign-ins the counters are zeroed
(`callgrind_control -z`), N operations are driven, and the counters are dumped (`callgrind_control -d`);
the totals of all the server's threads, divided by N, are reported with the functions that cost the
most (self instructions). Prints a table and one JSON object on its last line (also written to
Benchmarks/results/callgrind.json).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import time
from pathlib import Path

import requests

from benchlib import (CLIENT_CORE, Browser, Processes, authflow_config, config_accepted, free_port, log,
                      start_sandbox, wait_http, write_result)


def dump(pid: int, directory: Path, label: str) -> Path:
    before = set(directory.glob("callgrind.out.*"))
    subprocess.run(["callgrind_control", "-d", label, str(pid)], check=True, capture_output=True, timeout=120)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        new = set(directory.glob("callgrind.out.*")) - before
        if new:
            time.sleep(0.5)  # let the dump finish writing
            return max(new, key=lambda p: p.stat().st_mtime)
        time.sleep(0.2)
    raise RuntimeError("callgrind wrote no dump")


def totals(path: Path) -> int:
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {path}")


THREAD_ENTRIES = ("PROGRAM TOTALS", "file:function", "clone.S", "pthread_create.c", "NSThreadStart", "ThreadC4main",
                  "HandlerExecutorC11threadCount")


def top_functions(path: Path, count: int) -> list[dict]:
    output = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", str(path)], capture_output=True, text=True,
                            timeout=300).stdout
    rows = []
    for line in output.splitlines():
        match = re.match(r"\s*([\d,]+)\s+\(\s*([\d.]+)%\)\s+(.*)", line)
        # Thread entry points show up with their callees' costs (callgrind's cycle handling): skip them.
        if match and not any(entry in line for entry in THREAD_ENTRIES):
            rows.append({"ir": int(match.group(1).replace(",", "")), "percent": float(match.group(2)),
                         "function": match.group(3)[:160]})
        if len(rows) == count:
            break
    return rows


def floor_checks(processes: Processes, floor: str, preload: str | None, checks: int, top: int,
                 keep: Path | None) -> tuple[int, list[dict]]:
    """`GET /auth/check` on the HTTP layer alone (Sources/HTTPFloor: a fixed 202 from the immediate handler, the
    path a cached check takes), under callgrind as the server: instructions per request and the top functions.
    The same client sends both (its usual headers, without a session cookie here), so the difference is the
    check's own work."""
    out = processes.directory / "cg-floor"
    out.mkdir()
    port = free_port()
    child = processes.start(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out.%p", floor, str(port)],
        "callgrind-floor", core=None, env={**os.environ, "LD_PRELOAD": preload} if preload else None)
    url = f"http://127.0.0.1:{port}/auth/check"
    wait_http(url, child, limit=300)
    session = requests.Session()
    for _ in range(20):
        session.get(url, timeout=60)
    log(f"callgrind: {checks} /auth/check on http-floor")
    subprocess.run(["callgrind_control", "-z", str(child.pid)], check=True, capture_output=True, timeout=120)
    for _ in range(checks):
        answer = session.get(url, timeout=60)
        if answer.status_code != 202:
            raise RuntimeError(f"http-floor /auth/check: expected 202, found {answer.status_code}")
    dumped = dump(child.pid, out, "floor")
    if keep:
        (keep / dumped.name).write_bytes(dumped.read_bytes())
    return totals(dumped) // checks, top_functions(dumped, top)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the authflow binary (release, with symbols)")
    parser.add_argument("--signins", type=int, default=5)
    parser.add_argument("--checks", type=int, default=200)
    parser.add_argument("--logins", type=int, default=200, help="sign-in starts (GET /auth/google/login)")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--preload", help="a shared object to preload into the server (see valgrind/sigsuspend_copy.c)")
    parser.add_argument("--keep", help="a directory to copy the callgrind dumps into (for callgrind_annotate)")
    parser.add_argument("--floor", help="the HTTPFloor binary: also counts its /auth/check (the HTTP layer alone)")
    args = parser.parse_args()

    with Processes() as processes:
        port = free_port()
        sandbox = start_sandbox(processes, args.authflow, [f"http://127.0.0.1:{port}/auth/{{provider}}/callback"],
                                core=CLIENT_CORE)
        config = authflow_config(processes.directory, port, sandbox, "sqlite", rate_limits_off=True)
        if not config_accepted(args.authflow, config)[0]:
            config = authflow_config(processes.directory, port, sandbox, "sqlite", rate_limits_off=False)
        out = processes.directory / "cg"
        out.mkdir()
        child = processes.start(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/callgrind.out.%p",
             args.authflow, "serve", "--config", str(config)], "callgrind", core=None,
            env={**os.environ, "LD_PRELOAD": args.preload} if args.preload else None)
        url = f"http://127.0.0.1:{port}"
        wait_http(url + "/healthz", child, limit=300)
        browser = Browser(sandbox)
        login = f"{url}/auth/google/login?return_to=/"
        for index in range(3):  # warm-up: JWKS fetched, statements prepared, caches filled
            browser.sign_in(login, subject=str(10**20 + index))
        for _ in range(20):
            browser.session.get(url + "/auth/check", timeout=60)

        log(f"callgrind: {args.signins} sign-ins")
        subprocess.run(["callgrind_control", "-z", str(child.pid)], check=True, capture_output=True, timeout=120)
        for index in range(args.signins):
            browser.sign_in(login, subject=str(10**20 + 100 + index))
        signin_dump = dump(child.pid, out, "signin")

        log(f"callgrind: {args.checks} /auth/check")
        subprocess.run(["callgrind_control", "-z", str(child.pid)], check=True, capture_output=True, timeout=120)
        for _ in range(args.checks):
            answer = browser.session.get(url + "/auth/check", timeout=60)
            if answer.status_code != 202:
                raise RuntimeError(f"/auth/check: expected 202, found {answer.status_code}")
        check_dump = dump(child.pid, out, "check")

        log(f"callgrind: {args.logins} sign-in starts")
        subprocess.run(["callgrind_control", "-z", str(child.pid)], check=True, capture_output=True, timeout=120)
        for _ in range(args.logins):
            # A browser without cookies, as wrk's login measurement in server.sh: no earlier flow cookies to
            # read or evict.
            browser.session.cookies.clear()
            answer = browser.session.get(login, allow_redirects=False, timeout=60)
            if answer.status_code != 302:
                raise RuntimeError(f"/auth/google/login: expected 302, found {answer.status_code}")
        login_dump = dump(child.pid, out, "login")

        log(f"callgrind: {args.logins} sign-in starts from a browser holding four flow cookies")
        browser.session.cookies.clear()
        for _ in range(4):  # four sign-ins begun and not finished: the most a browser keeps
            browser.session.get(login, allow_redirects=False, timeout=60)
        subprocess.run(["callgrind_control", "-z", str(child.pid)], check=True, capture_output=True, timeout=120)
        for _ in range(args.logins):
            # Each start clears the oldest flow cookie and sets its own, so the browser keeps holding four.
            answer = browser.session.get(login, allow_redirects=False, timeout=60)
            if answer.status_code != 302:
                raise RuntimeError(f"/auth/google/login: expected 302, found {answer.status_code}")
        held = sum(1 for cookie in browser.session.cookies if "_flow_" in cookie.name)
        if held != 4:
            raise RuntimeError(f"sign-in starts with flow cookies: expected the browser to hold 4, found {held}")
        login4_dump = dump(child.pid, out, "login4")

        if args.keep:
            keep = Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
            for dumped in (signin_dump, check_dump, login_dump, login4_dump):
                (keep / dumped.name).write_bytes(dumped.read_bytes())
        signin_ir = totals(signin_dump) // args.signins
        check_ir = totals(check_dump) // args.checks
        login_ir = totals(login_dump) // args.logins
        login4_ir = totals(login4_dump) // args.logins
        signin_top = top_functions(signin_dump, args.top)
        check_top = top_functions(check_dump, args.top)
        login_top = top_functions(login_dump, args.top)
        login4_top = top_functions(login4_dump, args.top)
        floor_ir, floor_top = None, []
        if args.floor:
            keep = Path(args.keep) if args.keep else None
            floor_ir, floor_top = floor_checks(processes, args.floor, args.preload, args.checks, args.top, keep)

    print(f"{'operation':<14}{'instructions':>14}")
    print(f"{'sign-in':<14}{signin_ir:>14,}")
    print(f"{'/auth/check':<14}{check_ir:>14,}")
    print(f"{'sign-in start':<14}{login_ir:>14,}")
    print(f"{'start, 4 flow':<14}{login4_ir:>14,}  ({login4_ir / login_ir:.2f} x a fresh start; goal <= 2)")
    if floor_ir is not None:
        print(f"{'floor check':<14}{floor_ir:>14,}  (the check's own: {check_ir - floor_ir:,})")
    for label, top in (("sign-in", signin_top), ("/auth/check", check_top), ("sign-in start", login_top),
                       ("sign-in start with four flow cookies", login4_top), ("http-floor /auth/check", floor_top)):
        if not top:
            continue
        print(f"\nwhere {label} instructions go (self, all threads):")
        for row in top:
            print(f"{row['percent']:>6.2f}%  {row['function']}")
    result = {"benchmark": "callgrind", "signin_ir": signin_ir, "check_ir": check_ir, "login_ir": login_ir,
              "login_flow4_ir": login4_ir, "signins": args.signins, "checks": args.checks, "logins": args.logins,
              "signin_top": signin_top,
              "check_top": check_top, "login_top": login_top,
              "login_flow4_top": login4_top}
    if floor_ir is not None:
        result |= {"floor_check_ir": floor_ir, "floor_check_top": floor_top}
    write_result("callgrind", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
