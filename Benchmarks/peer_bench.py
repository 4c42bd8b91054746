#!/usr/bin/env python3
"""AuthFlow against the C peer: `authflow serve` and Apache httpd 2.4 with mod_auth_openidc (event MPM, one
child, sessions in the shm cache), both relying parties of the SAME standalone `authflow sandbox` (Google
OIDC + PKCE), measured in one run:

- sign-in starts at 64 connections: `GET /auth/google/login` against a `GET` of the peer's protected
  location without a session (both a 302 to the provider with a state cookie);
- session checks at 64 and at 1 connection: `GET /auth/check` with the session cookie against the protected
  location with the peer's session cookie (a zero-byte file behind `Require valid-user`), with the server's
  CPU per check from /proc/PID/stat;
- CPU per whole sign-in: the scripted browser of signin_bench.py (login → sandbox consent → callback → token
  exchange → id_token verification → session), the server's CPU from /proc/PID/stat (Apache's processes
  summed).

Run by Benchmarks/peer.sh (which installs and builds what it needs). The servers are pinned to one core,
wrk (one thread), the sandbox and the browser to the other; rounds are interleaved and the best is kept.
Prints a table and one JSON object on its last line (also written to Benchmarks/results/peer.json).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from pathlib import Path

import requests

from benchlib import (BENCH_DIR, BENCH_SECRET, CLIENT_CORE, SERVER_CORE, Browser, Processes, cpu_seconds,
                      descendants, free_port, log, machine_load, pin_driver, start_authflow, start_sandbox,
                      wait_http, write_result, wrk)
from signin_bench import measure

APACHE_CONF = BENCH_DIR / "peers" / "apache_openidc.conf"
APACHE_MODULES = Path("/usr/lib/apache2/modules")
PEER_COOKIE = "mod_auth_openidc_session"
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def apache_binary() -> str:
    for name in ("apache2", "httpd"):
        found = shutil.which(name) or (f"/usr/sbin/{name}" if Path(f"/usr/sbin/{name}").exists() else None)
        if found:
            return found
    raise RuntimeError("no apache2 binary: install Debian's apache2 and libapache2-mod-auth-openidc")


def start_apache(processes: Processes, port: int, sandbox, threads: int = 64, idle_connections: int = 0,
                 shm_entries: int = 10000):
    """apache2 -f (own ServerRoot under the run's directory) -DFOREGROUND, pinned to the server core; returns
    (process, base URL). As root the child runs as www-data, so its directory is world-readable and the run's
    directory traversable (it holds nothing of value: a throwaway sandbox's client secret)."""
    directory = processes.directory / "apache"
    (directory / "htdocs" / "protected").mkdir(parents=True)
    (directory / "htdocs" / "protected" / "check").write_text("")  # the protected location: an empty file
    os.chmod(processes.directory, 0o711)
    for path in (directory, directory / "htdocs", directory / "htdocs" / "protected"):
        os.chmod(path, 0o755)
    user = "www-data" if os.geteuid() == 0 else f"#{os.geteuid()}"
    group = "www-data" if os.geteuid() == 0 else f"#{os.getegid()}"
    conf = directory / "httpd.conf"
    conf.write_text(APACHE_CONF.read_text().format(
        dir=directory, port=port, user=user, group=group, modules=APACHE_MODULES, threads=threads,
        connections=idle_connections, async_factor=max(2, idle_connections // threads + 2),
        metadata_url=f"{sandbox.base_url}/google/.well-known/openid-configuration",
        client_id=sandbox.google["client_id"], client_secret=sandbox.client_secret,
        passphrase=BENCH_SECRET, shm_entries=shm_entries))
    child = processes.start([apache_binary(), "-d", str(directory), "-f", str(conf), "-DFOREGROUND"], "apache")
    url = f"http://127.0.0.1:{port}"
    wait_http(url + "/", child)
    # The child that serves is forked after the parent answers the first probe, and until mod_auth_openidc is
    # ready there the protected location can answer 404: wait until it sends a browser to the provider.
    deadline = time.monotonic() + 60
    while requests.get(f"{url}/protected/check", allow_redirects=False, timeout=10).status_code != 302:
        if child.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("mod_auth_openidc: /protected/check sent no redirect to the provider within 60 s")
        time.sleep(0.1)
    return child, url


def ratio(value: float | None, peer: float | None) -> float | None:
    """value ÷ peer, or None when either is missing or the peer's is 0 (a CPU figure below the clock tick)."""
    return round(value / peer, 3) if value is not None and peer else None


def output_tail(processes: Processes, name: str) -> str:
    """The end of the server's error log, to explain refused requests."""
    path = processes.directory / ("apache/apache-error.log" if name == "mod_auth_openidc" else f"{name}.log")
    lines = path.read_text(errors="replace").splitlines()[-10:] if path.exists() else []
    return ":\n" + "\n".join(lines) if lines else ""


def cookie_after_sign_in(sandbox, login_url: str, cookie_name: str, subject: str) -> str:
    browser = Browser(sandbox)
    browser.sign_in(login_url, subject=subject)
    value = browser.session.cookies.get(cookie_name)
    if not value:
        raise RuntimeError(f"{login_url}: no {cookie_name} cookie after signing in")
    return f"{cookie_name}={value}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--seconds", type=float, default=5, help="seconds per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--count", type=int, default=300, help="whole sign-ins per server and round")
    parser.add_argument("--stores", default="sqlite,memory", help="AuthFlow stores to measure")
    args = parser.parse_args()
    stores = args.stores.split(",")
    pin_driver()
    load_before = machine_load()

    with Processes() as processes:
        ports = {store: free_port() for store in stores}
        apache_port = free_port()
        sandbox = start_sandbox(
            processes, args.authflow,
            [f"http://127.0.0.1:{port}/auth/{{provider}}/callback" for port in ports.values()]
            + [f"http://127.0.0.1:{apache_port}/protected/redirect_uri"],
            core=CLIENT_CORE)
        # name → (base URL, sign-in start path, check path, check status, pids, session cookie)
        targets: dict[str, dict] = {}
        for store, port in ports.items():
            child, url = start_authflow(processes, args.authflow, sandbox, store, f"authflow-{store}", port=port)
            login = "/auth/google/login?return_to=/"
            targets[f"authflow-{store}"] = {
                "url": url, "login": login, "check": "/auth/check", "status": 202, "pids": [child.pid],
                "cookie": cookie_after_sign_in(sandbox, url + login, "authflow_session", str(10**20 + port))}
        # Slots for every session of the run and its nonce's replay entry, so none is evicted.
        apache, apache_url = start_apache(processes, apache_port, sandbox,
                                          shm_entries=2 * (args.count + 2) * args.rounds + 10000)
        targets["mod_auth_openidc"] = {
            "url": apache_url, "login": "/protected/check", "check": "/protected/check", "status": 200,
            "pids": descendants(apache.pid),
            "cookie": cookie_after_sign_in(sandbox, apache_url + "/protected/check", PEER_COOKIE,
                                           str(10**20 + apache_port))}

        best: dict[str, dict] = {name: {} for name in targets}
        offset = 0
        for round_number in range(1, args.rounds + 1):
            for name, target in targets.items():
                pids = descendants(apache.pid) if name == "mod_auth_openidc" else target["pids"]
                log(f"round {round_number}/{args.rounds}: {name}")
                runs = {}
                for key, path, connections, cookie in (("login_64", target["login"], 64, None),
                                                       ("check_64", target["check"], 64, target["cookie"]),
                                                       ("check_1", target["check"], 1, target["cookie"])):
                    # A browser's Accept (mod_auth_openidc answers 401 instead of redirecting without one).
                    headers = {"Accept": BROWSER_ACCEPT} | ({"Cookie": cookie} if cookie else {})
                    before = cpu_seconds(pids)
                    run = wrk(target["url"] + path, args.seconds, connections, headers)
                    run["cpu_us_per_request"] = ((cpu_seconds(pids) - before) * 1e6 / run["requests"]
                                                 if run["requests"] else None)
                    if run["non_2xx_3xx"]:
                        sample = requests.get(target["url"] + path, headers=headers,
                                              allow_redirects=False, timeout=10)
                        raise RuntimeError(f"{name} {key}: {run['non_2xx_3xx']} answers were not 2xx/3xx (one more "
                                           f"answered {sample.status_code}){output_tail(processes, name)}")
                    if cookie:  # wrk counts a 302 as an answer: the session must still be valid
                        answer = requests.get(target["url"] + path, headers=headers, allow_redirects=False, timeout=10)
                        if answer.status_code != target["status"]:
                            raise RuntimeError(f"{name} {key}: the session's check answered {answer.status_code} after "
                                               f"the run, expected {target['status']}")
                    runs[key] = run
                offset += args.count + 1
                runs["signin"] = measure(lambda: Browser(sandbox), target["url"] + target["login"],
                                         target["url"] + target["check"], pids, args.count, offset,
                                         check_status=target["status"], clear_cookies=True)
                for key, run in runs.items():
                    previous = best[name].get(key)
                    better = (run["cpu_ms_per_signin"] < previous["cpu_ms_per_signin"] if key == "signin"
                              else key == "check_1" and run["mean_us"] < previous["mean_us"]
                              or key != "check_1" and run["rps"] > previous["rps"]) if previous else True
                    if better:
                        best[name][key] = run

    peer = best["mod_auth_openidc"]
    rows = []
    print(f"{'server':<20}{'start/s @64':>12}{'check/s @64':>12}{'CPU µs/check':>13}{'check µs @1':>12}"
          f"{'CPU ms/sign-in':>15}")
    for name, runs in best.items():
        row = {
            "server": name,
            "login_64_rps": round(runs["login_64"]["rps"]),
            "check_64_rps": round(runs["check_64"]["rps"]),
            "check_64_cpu_us": round(runs["check_64"]["cpu_us_per_request"] or 0, 2),
            "check_1_mean_us": round(runs["check_1"]["mean_us"], 1),
            "signin_cpu_ms": round(runs["signin"]["cpu_ms_per_signin"], 3),
            "signins_per_s": round(runs["signin"]["signins_per_s"], 1),
        }
        row["vs_peer"] = {
            "login_64": ratio(runs["login_64"]["rps"], peer["login_64"]["rps"]),
            "check_64": ratio(runs["check_64"]["rps"], peer["check_64"]["rps"]),
            "check_64_cpu": ratio(runs["check_64"]["cpu_us_per_request"], peer["check_64"]["cpu_us_per_request"]),
            "check_1": ratio(runs["check_1"]["mean_us"], peer["check_1"]["mean_us"]),
            "signin_cpu": ratio(runs["signin"]["cpu_ms_per_signin"], peer["signin"]["cpu_ms_per_signin"]),
        }
        rows.append(row)
        print(f"{name:<20}{row['login_64_rps']:>12}{row['check_64_rps']:>12}{row['check_64_cpu_us']:>13.1f}"
              f"{row['check_1_mean_us']:>12.1f}{row['signin_cpu_ms']:>15.3f}")
    for row in rows[:-1]:
        ratios = {key: "–" if value is None else f"{value:.2f}" for key, value in row["vs_peer"].items()}
        print(f"{row['server']} ÷ mod_auth_openidc: starts {ratios['login_64']}×, checks @64 {ratios['check_64']}×, "
              f"CPU per check {ratios['check_64_cpu']}×, latency @1 {ratios['check_1']}×, "
              f"CPU per sign-in {ratios['signin_cpu']}× (goal ≤ 0.6)")
    load = {"before": load_before, "after": machine_load()}
    print(f"(best of {args.rounds} interleaved rounds of {args.seconds:g}s wrk runs and {args.count} sign-ins; servers "
          f"on core {SERVER_CORE}, wrk -t1, sandbox and browser on core {CLIENT_CORE}; load average {load['before']} "
          f"before, {load['after']} after)")
    result = {"benchmark": "peer", "seconds": args.seconds, "rounds": args.rounds, "count": args.count,
              "load": load, "rows": rows}
    write_result("peer", result)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
