#!/usr/bin/env python3
"""A traffic mix: session checks with sign-ins, logouts, anonymous requests and session reads between them, at
stated ratios (default 1000 checks : 5 sign-ins : 1 logout : 20 anonymous : 10 session reads), against

- `sqlite`: one `authflow serve` on the embedded SQLite store;
- `2 × pg+redis via nginx`: two instances on the same PostgreSQL (accounts) + Redis (sessions) behind one
  nginx `upstream` (as Benchmarks/instances/ runs them), when `--postgres-url` and `--redis-url` are given.

wrk (one thread, 64 connections, a generated Lua script) sends the checks (`GET /auth/check` with a session
cookie, 202), the anonymous requests (`GET /auth/check` without a cookie, 401) and the session reads
(`GET /auth/session` with the cookie, 200) in a fixed interleaved order, and counts the answers by status, so
the checks are counted exactly. Whole sign-ins (login → sandbox consent → callback) and logouts
(`POST /auth/logout` of one of those sessions) cannot be scripted in wrk: `--signin-threads` threads of a
compiled driver (Benchmarks/driver/signin_driver.c, libcurl, one connection pair per thread) make them
meanwhile, paced to the stated ratio against the rate of checks measured alone in the same round (times the share
of it the mix kept in the round before); the ratio reached is reported, and when the sign-ins fall short, why
(the driver's rate against the paced one and how busy the client core was). The latency percentiles are wrk's over its
requests, of which the checks are 1000/1030 by default.

The servers' CPU (utime + stime of every instance, /proc/PID/stat) over each run divided by the checks answered
is reported too: the driver and the sandbox share the client core with wrk, so part of a drop in checks/s
in the mix can be the client's, which the server CPU per check does not see.

Each round measures the checks alone (the same script with only checks), then the mix; the best round of
each is kept. Store round trips per check are the stores' own counters over the mixed run divided by the
checks answered: Redis commands from `INFO commandstats` (less the INFO calls), PostgreSQL transactions
(`xact_commit + xact_rollback` of the database in `pg_stat_database`, read after PostgreSQL's statistics have
been flushed); SQLite is in process and its calls are not countable from outside. Run by Benchmarks/mix.sh.
Prints a table and one JSON object on its last line (also written to Benchmarks/results/mix.json).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml

from benchlib import (BENCH_SECRET, CLIENT_CORE, SERVER_CORE, Browser, Processes, core_ticks, cpu_seconds, free_port,
                      log, machine_load, pin_driver, pinned, start_nginx, start_sandbox, wait_http, write_result)

NGINX_UPSTREAM = """
    upstream two {{
        server 127.0.0.1:{port_a};
        server 127.0.0.1:{port_b};
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://two;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $remote_addr;
        }}
    }}
"""

# The request schedule and the answers counted by status; `done` prints one line the driver parses.
LUA = """
local schedule = {{{schedule}}}
local paths = {{"/auth/check", "/auth/check", "/auth/session"}}
local cookies = {{true, false, true}}
local requests = {{}}
local index = 0
counts = {{}}  -- global: the main state reads it with thread:get
local threads = {{}}

setup = function(thread)
    table.insert(threads, thread)
end

init = function(args)
    for kind = 1, 3 do
        local headers = {{}}
        if cookies[kind] then headers["Cookie"] = "{cookie}" end
        requests[kind] = wrk.format("GET", paths[kind], headers)
    end
end

request = function()
    index = index % #schedule + 1
    return requests[schedule[index]]
end

response = function(status, headers, body)
    counts[status] = (counts[status] or 0) + 1
    if status ~= 200 and status ~= 202 and status ~= 401 and sample == nil then
        sample = status .. " " .. string.sub(string.gsub(body or "", "%s+", " "), 1, 200)
    end
end

done = function(summary, latency, requests)
    local total = {{}}
    for _, thread in ipairs(threads) do
        local part = thread:get("counts")
        for status, count in pairs(part) do total[status] = (total[status] or 0) + count end
    end
    local fields = {{}}
    for status, count in pairs(total) do table.insert(fields, string.format('"%d": %d', status, count)) end
    io.write("MIXCOUNTS {{" .. table.concat(fields, ", ") .. "}}\\n")
    io.write(string.format("MIXLATENCY %d %d %d\\n", latency:percentile(50), latency:percentile(99), latency.max))
    for _, thread in ipairs(threads) do
        local answer = thread:get("sample")
        if answer then io.write("MIXSAMPLE " .. answer .. "\\n") break end
    end
end
"""


def schedule(checks: int, anonymous: int, reads: int) -> list[int]:
    """1 = check, 2 = anonymous, 3 = session read, spread evenly over one cycle."""
    slots = [(i / checks, 1) for i in range(checks)]
    slots += [((i + 0.5) / anonymous, 2) for i in range(anonymous)]
    slots += [((i + 0.25) / reads, 3) for i in range(reads)]
    return [kind for _, kind in sorted(slots)]


def lua_script(directory: Path, name: str, cookie: str, kinds: list[int]) -> Path:
    path = directory / f"mix-{name}.lua"
    path.write_text(LUA.format(schedule=", ".join(map(str, kinds)), cookie=cookie))
    return path


def run_wrk(url: str, script: Path, seconds: float, connections: int) -> dict:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "-s", str(script), url]
    finished = subprocess.run(pinned(CLIENT_CORE, command), capture_output=True, text=True, timeout=seconds + 60)
    output = finished.stdout + finished.stderr
    counts = re.search(r"MIXCOUNTS (\{.*\})", output)
    latency = re.search(r"MIXLATENCY (\d+) (\d+) (\d+)", output)
    duration = re.search(r"requests in ([\d.]+)(us|ms|s)\b", output)
    if not counts or not latency or not duration:
        raise RuntimeError(f"wrk printed no mix counts for {url}: {output}")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1}
    elapsed = float(duration.group(1)) * scale[duration.group(2)]
    by_status = {int(status): count for status, count in json.loads(counts.group(1)).items()}
    sample = re.search(r"MIXSAMPLE (.*)", output)  # the first unexpected answer: status and body
    return {"seconds": elapsed, "by_status": by_status, "checks": by_status.get(202, 0),
            "checks_per_s": by_status.get(202, 0) / elapsed, "p50_us": int(latency.group(1)),
            "p99_us": int(latency.group(2)), "max_us": int(latency.group(3)),
            "unexpected_sample": sample.group(1).strip() if sample else None}


class Counters:
    """Store round trips seen by the stores themselves: Redis commands and PostgreSQL transactions."""

    def __init__(self, postgres_url: str | None, redis_url: str | None):
        self.postgres_url, self.redis_url = postgres_url, redis_url

    def redis(self) -> int | None:
        if not self.redis_url:
            return None
        # redis-cli reads the password from REDISCLI_AUTH, not from a URL with an empty user name.
        url = urlsplit(self.redis_url)
        env = dict(os.environ, REDISCLI_AUTH=unquote(url.password or ""))
        command = ["redis-cli", "-h", url.hostname or "127.0.0.1", "-p", str(url.port or 6379)]
        if url.username:
            command += ["--user", unquote(url.username)]
        text = subprocess.run(command + ["info", "commandstats"], capture_output=True, text=True, timeout=30,
                              check=True, env=env).stdout
        calls = re.findall(r"cmdstat_([a-z|]+):calls=(\d+)", text)
        if not calls:
            raise RuntimeError(f"redis-cli info commandstats: expected cmdstat lines, found {text[:200]!r}")
        return sum(int(count) for command_name, count in calls if command_name != "info")

    def postgres(self) -> int | None:
        if not self.postgres_url:
            return None
        query = ("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()")
        text = subprocess.run(["psql", self.postgres_url, "-Atc", query], capture_output=True, text=True,
                              timeout=30, check=True).stdout
        return int(text.strip())

    def settle(self) -> None:
        # A PostgreSQL backend flushes its statistics at most once a second while busy and within 10 s once
        # idle: wait them out so a reading covers everything before it.
        if self.postgres_url:
            time.sleep(11)

    def read(self) -> dict:
        return {"redis": self.redis(), "postgres": self.postgres()}


class SignIns:
    """Whole sign-ins (and a logout after every `per_logout` of them) paced to `per_second`, made by the compiled
    driver (Benchmarks/driver/signin_driver.c, libcurl) on the client core: the Python browsers it replaced made
    about 30 sign-ins/s with that core full, too few for the ratio at full check speed."""

    def __init__(self, driver: str, sandbox, url: str, per_second: float, per_logout: int, threads: int,
                 subject_base: int):
        self.driver, self.sandbox, self.url, self.per_second = driver, sandbox, url, per_second
        self.per_logout, self.threads, self.subject_base = per_logout, threads, subject_base
        self.signins = self.completed = self.logouts = 0
        self.errors: list[str] = []

    def run(self, seconds: float) -> None:
        if self.per_second <= 0:
            return
        command = [self.driver, "--url", self.url, "--sandbox", self.sandbox.base_url, "--rate",
                   f"{self.per_second:.3f}", "--seconds", f"{seconds:g}", "--threads", str(self.threads),
                   "--per-logout", str(self.per_logout), "--subject-base", str(self.subject_base)]
        finished = subprocess.run(pinned(CLIENT_CORE, command), capture_output=True, text=True, timeout=seconds + 120)
        lines = finished.stdout.strip().splitlines()
        if finished.returncode != 0 or not lines:
            raise RuntimeError(f"signin_driver failed ({finished.returncode}): {finished.stderr[-500:]}")
        result = json.loads(lines[-1])
        self.signins, self.completed, self.logouts = result["signins"], result["completed"], result["logouts"]
        self.errors = result["errors"] + [""] * max(0, result["failures"] - len(result["errors"]))


def ratio_not_reached(row: dict, checks: int, signins: int, threads: int) -> str | None:
    """Why the mix fell short of the stated sign-ins (measured in the same run), or None when it reached them."""
    reached = row["reached"]
    stated = signins * reached["checks"] / checks
    if not signins or reached["signins"] >= 0.9 * stated:
        return None
    busy = row["client_core_busy"]
    text = (f"the ratio of sign-ins was not reached: {reached['signins']} in the mix's {reached['checks']} checks "
            f"(the ratio asks {stated:.0f}); the driver made {row['signins_per_s']:.1f} sign-ins/s of the "
            f"{row['signins_asked_per_s']:.1f}/s paced from the checks alone, with the client core (wrk, {threads} "
            f"driver threads, the sandbox{'' if row['deployment'] == 'sqlite' else ', nginx'}) "
            f"{100 * busy:.0f} % busy")
    if busy > 0.95:
        return text + (": the client core is full, so the driver cannot go faster on it (on two cores the ratio "
                       "needs fewer checks/s than wrk makes, or the driver and the sandbox on a core of their own)")
    return text + "; more --signin-threads would come nearer (each waits for the server and the sandbox)"


def instance_config(directory: Path, name: str, port: int, public_url: str, google: dict, store: dict) -> Path:
    server = {"listen": f"127.0.0.1:{port}", "public_url": public_url, "secret": BENCH_SECRET,
              "allowed_return_to": ["/"], "session_ttl": "8h", "rate_limits": "off"}
    path = directory / f"providers-{name}.yaml"
    path.write_text(yaml.safe_dump({"server": server, "store": store, "providers": {"google": google}},
                                   sort_keys=False))
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--postgres-url", help="PostgreSQL for the two-instance deployment")
    parser.add_argument("--redis-url", help="Redis for the two-instance deployment")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--ratio", default="1000:5:1:20:10",
                        help="checks : sign-ins : logouts : anonymous requests : session reads")
    parser.add_argument("--signin-threads", type=int, default=4)
    parser.add_argument("--signin-driver", required=True, help="the compiled sign-in driver (mix.sh builds it)")
    args = parser.parse_args()
    checks, signins, logouts, anonymous, reads = (int(part) for part in args.ratio.split(":"))
    if checks <= 0 or min(signins, logouts, anonymous, reads) < 0 or (logouts and not signins):
        raise SystemExit(f"--ratio: expected five counts (checks > 0; logouts need sign-ins), found {args.ratio!r}")
    pin_driver()
    load_before = machine_load()

    with Processes() as processes:
        ports = {"sqlite": free_port()}
        public = {"sqlite": f"http://127.0.0.1:{ports['sqlite']}"}
        shared = bool(args.postgres_url and args.redis_url)
        if shared:
            ports.update(a=free_port(), b=free_port(), nginx=free_port())
            public["2 × pg+redis via nginx"] = f"http://127.0.0.1:{ports['nginx']}"
        # Every sign-in leaves a code the sandbox remembers for an hour (10,000 at most by default): the compiled
        # driver makes more than that in a run.
        sandbox = start_sandbox(processes, args.authflow, [url + "/auth/{provider}/callback" for url in public.values()],
                                core=CLIENT_CORE, max_pending=1_000_000)
        instances = {"sqlite": (ports["sqlite"], public["sqlite"],
                                {"kind": "sqlite", "path": str(processes.directory / "authflow.sqlite")})}
        if shared:
            store = {"kind": "postgres", "postgres_url": args.postgres_url, "redis_url": args.redis_url}
            for name in ("a", "b"):
                instances[name] = (ports[name], public["2 × pg+redis via nginx"], store)
        pids: dict[str, list[int]] = {}  # deployment → its instances' processes
        for name, (port, public_url, store) in instances.items():
            path = instance_config(processes.directory, name, port, public_url, sandbox.google, store)
            child = processes.start([args.authflow, "serve", "--config", str(path)], f"authflow-{name}")
            wait_http(f"http://127.0.0.1:{port}/healthz", child)
            pids.setdefault("sqlite" if name == "sqlite" else "2 × pg+redis via nginx", []).append(child.pid)
        if shared:
            start_nginx(processes, NGINX_UPSTREAM.format(port_a=ports["a"], port_b=ports["b"], port=ports["nginx"]),
                        public["2 × pg+redis via nginx"] + "/healthz", core=CLIENT_CORE, worker_connections=4096)

        targets = {}
        for number, (name, url) in enumerate(public.items()):
            browser = Browser(sandbox)
            browser.sign_in(f"{url}/auth/google/login?return_to=/", subject=str(4 * 10**19 + number))
            cookie = browser.session.cookies.get("authflow_session")
            if not cookie:
                raise RuntimeError(f"{name}: no session cookie after signing in")
            cookie = f"authflow_session={cookie}"
            targets[name] = {
                "url": url, "pids": pids[name],
                "alone": lua_script(processes.directory, f"{number}-alone", cookie, [1]),
                "mix": lua_script(processes.directory, f"{number}-mix", cookie, schedule(checks, anonymous, reads)),
                "counters": Counters(args.postgres_url, args.redis_url) if name != "sqlite" else Counters(None, None),
                "mix_factor": 1.0,
            }

        best: dict[str, dict] = {name: {} for name in targets}
        for round_number in range(1, args.rounds + 1):
            for number, (name, target) in enumerate(targets.items()):
                log(f"round {round_number}/{args.rounds}: {name}, checks alone")
                counters = target["counters"]
                counters.settle()
                before = counters.read()
                cpu_before = cpu_seconds(target["pids"])
                alone = run_wrk(target["url"] + "/auth/check", target["alone"], args.seconds, args.connections)
                alone["server_cpu_us_per_check"] = ((cpu_seconds(target["pids"]) - cpu_before) * 1e6
                                                  / max(1, alone["checks"]))
                counters.settle()
                after = counters.read()
                alone["store"] = {key: after[key] - before[key] if before[key] is not None else None for key in after}
                log(f"round {round_number}/{args.rounds}: {name}, mix")
                # Paced to the checks the mix is expected to answer: alone, times what the mix kept of them in
                # the previous round (the first round assumes all of them).
                pace = SignIns(args.signin_driver, sandbox, target["url"],
                               alone["checks_per_s"] * target["mix_factor"] * signins / checks,
                               max(1, signins // logouts) if logouts else 10**9, args.signin_threads,
                               5 * 10**17 + 1000 * number)
                counters.settle()
                before = counters.read()
                cpu_before = cpu_seconds(target["pids"])
                client_before = core_ticks(CLIENT_CORE)
                driver = threading.Thread(target=pace.run, args=(args.seconds,)) if signins else None
                if driver:
                    driver.start()
                mixed = run_wrk(target["url"] + "/auth/check", target["mix"], args.seconds, args.connections)
                if driver:
                    driver.join()
                client_after = core_ticks(CLIENT_CORE)
                # How busy the client core was (wrk, the driver, the sandbox, nginx): when it is full, the
                # driver cannot make the sign-ins the ratio asks for.
                mixed["client_core_busy"] = ((client_after[0] - client_before[0])
                                             / max(1, client_after[1] - client_before[1]))
                mixed["signins_asked_per_s"] = pace.per_second
                mixed["signins_per_s"] = pace.completed / args.seconds
                mixed["server_cpu_us_per_check"] = ((cpu_seconds(target["pids"]) - cpu_before) * 1e6
                                                  / max(1, mixed["checks"]))
                counters.settle()
                after = counters.read()
                mixed["store"] = {key: after[key] - before[key] if before[key] is not None else None for key in after}
                mixed.update(signins=pace.completed, logouts=pace.logouts, signin_failures=len(pace.errors),
                             signin_errors=pace.errors[:5])
                # Other answers (a 503 when a store does not answer in time) are counted and reported, not hidden.
                mixed["unexpected"] = {status: count for status, count in mixed["by_status"].items()
                                       if status not in (200, 202, 401)}
                alone["unexpected"] = {status: count for status, count in alone["by_status"].items() if status != 202}
                if mixed["unexpected"] or alone["unexpected"]:
                    log(f"{name}: unexpected answers: mix {mixed['unexpected']}, alone {alone['unexpected']}; for "
                        f"example {mixed['unexpected_sample'] or alone['unexpected_sample']!r}")
                if pace.errors:
                    log(f"{name}: {len(pace.errors)} sign-ins or logouts failed, for example {pace.errors[:3]}")
                    if not pace.completed:
                        raise RuntimeError(f"{name}: no sign-in completed: {pace.errors[:3]}")
                target["mix_factor"] = min(1.0, mixed["checks_per_s"] / max(1e-9, alone["checks_per_s"]))
                for key, run in (("alone", alone), ("mix", mixed)):
                    if key not in best[name] or run["checks_per_s"] > best[name][key]["checks_per_s"]:
                        best[name][key] = run

    rows = []
    mixed_errors = {name: runs["mix"]["signin_errors"] for name, runs in best.items()}
    print(f"{'deployment':<25}{'checks/s alone':>15}{'checks/s mix':>13}{'÷alone':>8}{'p50 µs':>8}{'p99 µs':>8}"
          f"{'CPU µs/check alone':>19}{'mix':>7}{'store trips/check':>18}  mix reached (checks:sign-ins:logouts:anon:reads)")
    for name, runs in best.items():
        mixed, alone = runs["mix"], runs["alone"]
        trips = [value for value in mixed["store"].values() if value is not None]
        row = {
            "deployment": name,
            "checks_alone_per_s": round(alone["checks_per_s"]),
            "checks_mix_per_s": round(mixed["checks_per_s"]),
            "mix_vs_alone": round(mixed["checks_per_s"] / alone["checks_per_s"], 3),
            "mix_p50_us": mixed["p50_us"], "mix_p99_us": mixed["p99_us"],
            # All the servers' CPU over the run ÷ checks answered: in the mix it carries the other requests' share.
            "server_cpu_us_per_check_alone": round(alone["server_cpu_us_per_check"], 2),
            "server_cpu_us_per_check_mix": round(mixed["server_cpu_us_per_check"], 2),
            "alone_p50_us": alone["p50_us"], "alone_p99_us": alone["p99_us"],
            "store_round_trips_per_check": round(sum(trips) / mixed["checks"], 4) if trips else None,
            "store_round_trips_alone_per_check": (round(sum(v for v in alone["store"].values() if v is not None)
                                                        / alone["checks"], 4) if trips else None),
            "store_counts": mixed["store"],
            "unexpected_answers": {"mix": mixed["unexpected"], "alone": alone["unexpected"]},
            "unexpected_sample": mixed["unexpected_sample"] or alone["unexpected_sample"],
            "signin_or_logout_failures": mixed["signin_failures"],
            "signins_asked_per_s": round(mixed["signins_asked_per_s"], 1),
            "signins_per_s": round(mixed["signins_per_s"], 1),
            "client_core_busy": round(mixed["client_core_busy"], 3),
            "reached": {"checks": mixed["checks"], "signins": mixed["signins"], "logouts": mixed["logouts"],
                        "anonymous": mixed["by_status"].get(401, 0), "session_reads": mixed["by_status"].get(200, 0)},
        }
        row["ratio_not_reached"] = ratio_not_reached(row, checks, signins, args.signin_threads)
        rows.append(row)
        reached = row["reached"]
        per = checks / reached["checks"] if reached["checks"] else 0
        trips_text = f"{row['store_round_trips_per_check']:.4f}" if trips else "not countable"
        print(f"{name:<25}{row['checks_alone_per_s']:>15}{row['checks_mix_per_s']:>13}{row['mix_vs_alone']:>8.2f}"
              f"{row['mix_p50_us']:>8}{row['mix_p99_us']:>8}{row['server_cpu_us_per_check_alone']:>19.1f}"
              f"{row['server_cpu_us_per_check_mix']:>7.1f}{trips_text:>18}  {checks}:"
              f"{reached['signins'] * per:.1f}:{reached['logouts'] * per:.1f}:{reached['anonymous'] * per:.1f}:"
              f"{reached['session_reads'] * per:.1f}")
    for row in rows:
        if row["unexpected_answers"]["mix"] or row["unexpected_answers"]["alone"]:
            print(f"{row['deployment']}: answers other than expected, by status: {row['unexpected_answers']}, for "
                  f"example {row['unexpected_sample']!r}")
        print(f"{row['deployment']}: {row['reached']['signins']} sign-ins and {row['reached']['logouts']} logouts "
              f"in the mix, {row['signin_or_logout_failures']} failed"
              + (f", for example {mixed_errors[row['deployment']][:3]}" if row["signin_or_logout_failures"] else ""))
        if row["ratio_not_reached"]:
            print(f"{row['deployment']}: {row['ratio_not_reached']}")
    load = {"before": load_before, "after": machine_load()}
    print(f"(mix {args.ratio} = checks:sign-ins:logouts:anonymous:session reads; best of {args.rounds} rounds of "
          f"{args.seconds:g}s at {args.connections} connections; goals: mix ÷ alone ≥ 0.9, store round trips per "
          f"check < 0.05; SQLite is in process, its calls not countable; AuthFlow on core {SERVER_CORE}, wrk, "
          f"nginx, the sandbox and the sign-in driver on core {CLIENT_CORE}; load average {load['before']} "
          f"before, {load['after']} after)")
    result = {"benchmark": "mix", "ratio": args.ratio, "seconds": args.seconds, "rounds": args.rounds,
              "connections": args.connections, "signin_threads": args.signin_threads, "load": load, "rows": rows}
    write_result("mix", result)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
