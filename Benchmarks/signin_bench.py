#!/usr/bin/env python3
"""Whole sign-ins: `authflow serve` against a small Flask + authlib app under gunicorn, both signing in
with the SAME standalone `authflow sandbox` (Google OIDC + PKCE: login redirect → consent → callback →
token exchange → id_token verification → account and session written to SQLite), driven one after the
other by one client. Run by Benchmarks/signin.sh (which installs and builds what it needs).

Reports sign-ins per second (wall clock, shared by the driver and the sandbox) and the CPU seconds per
sign-in of the app process alone, from /proc/PID/stat (utime + stime), which the shared client cannot
distort. Both apps are pinned to the same core; the sandbox and the driver to the other. Prints a table
and one JSON object on its last line (also written to Benchmarks/results/signin.json).
"""
from __future__ import annotations

import argparse
import json
import os
import time

from benchlib import (BENCH_DIR, BENCH_SECRET, CLIENT_CORE, SERVER_CORE, Browser, Processes, cpu_times,
                      descendants, driver_cores, free_port, log, machine_load, pin_driver, start_authflow,
                      start_sandbox, wait_http, write_result)


def measure(browser_factory, login_url: str, check_url: str, pids: list[int], count: int, offset: int,
            check_status: int = 202, clear_cookies: bool = False) -> dict:
    """`count` sign-ins, each a new Google subject (so each writes a new account), in one browser; then
    `check_url` must answer `check_status` with the last session. With `clear_cookies`, the browser drops its
    cookies before each sign-in (a visitor without a session, as a protected location needs to redirect)."""
    browser = browser_factory()
    browser.sign_in(login_url, subject=str(10**20 + offset))  # warm-up: JWKS fetched, connections open
    user_before, system_before = cpu_times(pids)
    started = time.monotonic()
    for index in range(count):
        if clear_cookies:
            browser.session.cookies.clear()
        browser.sign_in(login_url, subject=str(10**20 + offset + 1 + index))
    elapsed = time.monotonic() - started
    user_after, system_after = cpu_times(pids)
    user, system = user_after - user_before, system_after - system_before
    answer = browser.session.get(check_url, timeout=30)
    if answer.status_code != check_status:
        raise RuntimeError(f"{check_url}: expected {check_status} after signing in, found {answer.status_code}")
    return {"signins_per_s": count / elapsed, "cpu_ms_per_signin": (user + system) * 1000 / count,
            "user_ms_per_signin": user * 1000 / count, "system_ms_per_signin": system * 1000 / count}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--python", required=True, help="Python with authlib, Flask and gunicorn")
    parser.add_argument("--count", type=int, default=300, help="sign-ins per app and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pin_driver()
    load_before = machine_load()

    with Processes() as processes:
        authflow_port, peer_port = free_port(), free_port()
        sandbox = start_sandbox(
            processes, args.authflow,
            [f"http://127.0.0.1:{authflow_port}/auth/{{provider}}/callback",
             f"http://127.0.0.1:{peer_port}/callback"],
            core=CLIENT_CORE)
        authflow, authflow_url = start_authflow(processes, args.authflow, sandbox, "sqlite", "authflow",
                                                port=authflow_port)
        env = dict(os.environ,
                   BENCH_DISCOVERY_URL=f"{sandbox.base_url}/google/.well-known/openid-configuration",
                   BENCH_CLIENT_ID=str(sandbox.google["client_id"]), BENCH_CLIENT_SECRET=sandbox.client_secret,
                   BENCH_DATABASE=str(processes.directory / "peer.sqlite"), BENCH_SECRET=BENCH_SECRET)
        gunicorn = [args.python, "-m", "gunicorn", "--workers", "1", "--bind", f"127.0.0.1:{peer_port}",
                    "--chdir", str(BENCH_DIR / "peers"), "authlib_app:app"]
        peer = processes.start(gunicorn, "peer", env=env)
        peer_url = f"http://127.0.0.1:{peer_port}"
        wait_http(peer_url + "/healthz", peer)

        apps = {
            "authflow": (f"{authflow_url}/auth/google/login?return_to=/", f"{authflow_url}/auth/check",
                         [authflow.pid]),
            "authlib": (f"{peer_url}/login", f"{peer_url}/check", descendants(peer.pid)),
        }
        best: dict[str, dict] = {}
        offset = 0
        for round_number in range(1, args.rounds + 1):
            for name, (login_url, check_url, pids) in apps.items():
                log(f"round {round_number}/{args.rounds}: {name}, {args.count} sign-ins")
                offset += args.count + 1
                run = measure(lambda: Browser(sandbox), login_url, check_url, pids, args.count, offset)
                # Best round by CPU per sign-in (the figure the goal is about).
                if name not in best or run["cpu_ms_per_signin"] < best[name]["cpu_ms_per_signin"]:
                    best[name] = run

    # A ratio needs the peer's CPU to have passed at least one 10 ms /proc tick (a few-sign-in smoke run may not).
    peer_ms = best["authlib"]["cpu_ms_per_signin"]
    ratio = best["authflow"]["cpu_ms_per_signin"] / peer_ms if peer_ms else None
    print(f"{'app':<12}{'sign-ins/s':>12}{'CPU ms/sign-in':>16}{'user':>8}{'system':>8}")
    for name, run in best.items():
        print(f"{name:<12}{run['signins_per_s']:>12.1f}{run['cpu_ms_per_signin']:>16.3f}"
              f"{run['user_ms_per_signin']:>8.3f}{run['system_ms_per_signin']:>8.3f}")
    load = {"before": load_before, "after": machine_load()}
    print(f"(AuthFlow CPU per sign-in = {'n/a' if ratio is None else f'{ratio:.3f}'} × authlib's, goal ≤ 0.2; best of {args.rounds} rounds of "
          f"{args.count}; apps on core {SERVER_CORE}, sandbox on core {CLIENT_CORE}, driver on core {driver_cores()}; "
          f"load average "
          f"{load['before']} before, {load['after']} after)")
    result = {
        "benchmark": "signin", "count": args.count, "rounds": args.rounds, "load": load,
        "apps": {name: {key: round(value, 3) for key, value in run.items()} for name, run in best.items()},
        "cpu_ratio": None if ratio is None else round(ratio, 3), "driver_cores": driver_cores(),
    }
    write_result("signin", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
