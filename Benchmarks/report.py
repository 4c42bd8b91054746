#!/usr/bin/env python3
"""Writes BENCHMARKS.md (repository root) and its chart Benchmarks/results/benchmarks.png from the latest
results the runners left in Benchmarks/results/*.json. Every runner calls it; it can also be run alone.
With AUTHFLOW_BENCH_RESULTS set (the smoke step), it reads that directory and writes BENCHMARKS.md there.
"""
from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent
RESULTS = Path(os.environ.get("AUTHFLOW_BENCH_RESULTS") or BENCH_DIR / "results")
REPORT = RESULTS / "BENCHMARKS.md" if os.environ.get("AUTHFLOW_BENCH_RESULTS") else BENCH_DIR.parent / "BENCHMARKS.md"
CHART = RESULTS / "benchmarks.png"


def load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def chart(jose, server, signin, peer=None) -> None:
    panels = [p for p in (server and "server", server and "latency", signin and "signin", peer and "peer",
                          jose and "jose") if p]
    if not panels:
        return
    figure, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.2), squeeze=False)
    for axis, panel in zip(axes[0], panels):
        if panel == "server":
            rows = server["rows"]
            labels = ["check @64", "login @64"]
            width = 0.8 / len(rows)
            for index, row in enumerate(rows):
                values = [row["check_64_rps"], row["login_64_rps"]]
                axis.bar([x + index * width for x in range(2)], values, width, label=row["server"])
            axis.set_xticks([x + width * (len(rows) - 1) / 2 for x in range(2)], labels)
            axis.set_title("server throughput (requests/s)")
            axis.legend(fontsize=7)
        elif panel == "latency":
            rows = server["rows"]
            axis.bar([row["server"] for row in rows], [row["check_1_mean_us"] for row in rows])
            axis.set_title("/auth/check mean latency @1 (µs)")
            axis.tick_params(axis="x", labelrotation=30, labelsize=7)
        elif panel == "signin":
            apps = signin["apps"]
            axis.bar(list(apps), [apps[name]["cpu_ms_per_signin"] for name in apps], color=["C0", "C3"])
            axis.set_title("app CPU per sign-in (ms)")
        elif panel == "peer":
            rows = peer["rows"]
            width = 0.8 / len(rows)
            for index, row in enumerate(rows):
                axis.bar([x + index * width for x in range(2)], [row["login_64_rps"], row["check_64_rps"]], width,
                         label=row["server"])
            axis.set_xticks([x + width * (len(rows) - 1) / 2 for x in range(2)], ["sign-in start @64", "check @64"])
            axis.set_title("against mod_auth_openidc (requests/s)")
            axis.legend(fontsize=7)
        elif panel == "jose":
            operations = list(jose["best"])
            tools = list(jose["best"][operations[0]])
            width = 0.8 / len(tools)
            for index, tool in enumerate(tools):
                axis.bar([x + index * width for x in range(len(operations))],
                         [jose["best"][op][tool] for op in operations], width, label=tool)
            axis.set_xticks([x + width * (len(tools) - 1) / 2 for x in range(len(operations))], operations)
            axis.set_yscale("log")
            axis.set_title("JOSE (ops/s, log scale)")
            axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(CHART, dpi=90)
    plt.close(figure)


def markdown(jose, server, signin, callgrind) -> str:
    lines = [
        "# Benchmarks",
        "",
        "Latest figures of the runners in `Benchmarks/` (see `Benchmarks/README.md` for how they measure).",
        "Wall-clock figures come from a shared machine: compare AuthFlow with the peer measured **in the same",
        "run**, not across runs; the callgrind instruction counts are the stable figure for regressions.",
        f"Generated {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} by `Benchmarks/report.py`.",
        "",
        "![AuthFlow against its peers](Benchmarks/results/benchmarks.png)",
        "",
    ]
    if server:
        lines += ["## Server (`Benchmarks/server.sh`)", "",
                  "| server | /auth/check @64 (req/s) | ÷ nginx | login @64 (req/s) | ÷ nginx | /auth/check @1 (µs) "
                  "| × nginx |", "|---|---:|---:|---:|---:|---:|---:|"]
        for row in server["rows"]:
            lines.append(f"| {row['server']} | {row['check_64_rps']:,} | {row['check_64_vs_nginx']:.2f} | "
                         f"{row['login_64_rps']:,} | {row['login_64_vs_nginx']:.2f} | {row['check_1_mean_us']:.1f} "
                         f"| {row['check_1_vs_nginx']:.2f} |")
        lines += ["", f"Best of {server['rounds']} rounds of {server['seconds']:g} s; load average "
                  f"{server['load']['before']} before, {server['load']['after']} after. Goals: starts ÷ nginx ≥ 0.5, "
                  "checks ÷ nginx ≥ 0.6, × nginx ≤ 1.5."]
        if any(row["server"] == "http-floor" for row in server["rows"]):
            lines += ["`http-floor` (`Benchmarks/Sources/HTTPFloor`) is AuthFlow's HTTP layer alone, answering the same "
                      "routes with fixed responses: `/auth/check` on the immediate path (no task), as a cached "
                      "session check is answered, and the login on the task path, as a sign-in start is. What "
                      "separates an `authflow` row from it is the sign-in server's own work; what separates it from "
                      "nginx is the HTTP layer's."]
        lines += [""]
    if signin:
        lines += ["## Whole sign-ins (`Benchmarks/signin.sh`)", "",
                  "| app | sign-ins/s | app CPU per sign-in (ms) | user (ms) | system (ms) |", "|---|---:|---:|---:|---:|"]
        for name, run in signin["apps"].items():
            split = (f"{run['user_ms_per_signin']:.3f} | {run['system_ms_per_signin']:.3f}"
                     if "user_ms_per_signin" in run else "– | –")
            lines.append(f"| {name} | {run['signins_per_s']:.1f} | {run['cpu_ms_per_signin']:.3f} | {split} |")
        lines += ["", f"AuthFlow's CPU per sign-in is {number(signin['cpu_ratio'], 3)} × the authlib app's (goal ≤ 0.2). "
                  f"Best of {signin['rounds']} rounds of {signin['count']}; load average "
                  f"{signin['load']['before']} before, {signin['load']['after']} after.", ""]
    if jose:
        floor = all("floor" in row for row in jose["best"].values())
        lines += ["## JOSE (`Benchmarks/run.sh`)", ""]
        if floor:
            lines += ["| operation | AuthFlow | libcrypto floor | openssl speed | PyJWT | ÷ openssl | ÷ floor "
                      "| floor ÷ openssl |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        else:
            lines += ["| operation | AuthFlow | openssl speed | PyJWT | ÷ openssl |", "|---|---:|---:|---:|---:|"]
        for op, row in jose["best"].items():
            ratio = row["authflow"] / row["openssl"] if row["openssl"] else 0
            if floor:
                vs_floor = row["authflow"] / row["floor"] if row["floor"] else 0
                ceiling = row["floor"] / row["openssl"] if row["openssl"] else 0
                lines.append(f"| {op} | {row['authflow']:,} | {row['floor']:,} | {row['openssl']:,} | {row['pyjwt']:,} "
                             f"| {ratio:.2f} | {vs_floor:.2f} | {ceiling:.2f} |")
            else:
                lines.append(f"| {op} | {row['authflow']:,} | {row['openssl']:,} | {row['pyjwt']:,} | {ratio:.2f} |")
        lines += ["", f"ops/s, best of {jose['rounds']} rounds, one core; load average {jose['load']['before']} "
                  f"before, {jose['load']['after']} after. Goal: RS256 verify, ES256 sign and ES256 verify ≥ 0.93 × "
                  "openssl each."]
        if floor:
            lines += ["The libcrypto floor (`Benchmarks/floor/jose_floor.c`) makes only the OpenSSL calls of AuthFlow's "
                      "path: the SHA-256 of a signing input as long as the benchmark token's, then one sign or verify "
                      "on a context set up once. `÷ floor` is the share AuthFlow's own code (base64url, JSON, "
                      "header and claim checks, key choice) leaves; `floor ÷ openssl` is the most any JWT path on "
                      "this libcrypto could reach."]
        lines += [""]
    if callgrind:
        lines += ["## Instruction counts (`Benchmarks/callgrind.sh`)", "", "| operation | instructions |",
                  "|---|---:|", f"| one sign-in (server side) | {callgrind['signin_ir']:,} |",
                  f"| one `/auth/check` | {callgrind['check_ir']:,} |"]
        if "login_ir" in callgrind:
            lines.append(f"| one sign-in start (`/auth/google/login`) | {callgrind['login_ir']:,} |")
        if "login_flow4_ir" in callgrind:
            ratio = callgrind["login_flow4_ir"] / callgrind["login_ir"]
            lines.append(f"| one sign-in start from a browser holding four flow cookies | "
                         f"{callgrind['login_flow4_ir']:,} ({ratio:.2f} × a fresh start; goal ≤ 2) |")
        if "floor_check_ir" in callgrind:
            own = callgrind["check_ir"] - callgrind["floor_check_ir"]
            lines.append(f"| one `/auth/check` on `http-floor` (the HTTP layer alone) | "
                         f"{callgrind['floor_check_ir']:,} (the check's own: {own:,}) |")
        lines += [""]
        for label, key in (("sign-in", "signin_top"), ("/auth/check", "check_top"), ("sign-in start", "login_top"),
                           ("sign-in start with four flow cookies", "login_flow4_top"),
                           ("/auth/check on http-floor", "floor_check_top")):
            if key not in callgrind:
                continue
            lines += [f"Where a {label} goes (self instructions, all threads):", "", "```"]
            lines += [f"{row['percent']:>6.2f}%  {row['function']}" for row in callgrind[key][:10]]
            lines += ["```", ""]
    return "\n".join(lines)


def profile_section(profile: dict) -> list[str]:
    lines = ["## Where the time goes (`Benchmarks/profile.sh`)", "",
             "`perf record -g` on `authflow serve` (SQLite store); each share of the server's samples is turned into",
             "µs per operation with the server's CPU per operation from `/proc/PID/stat`. That CPU is measured while",
             "perf records, which adds to it (a sign-in costs more here than in `signin.sh`): read the shares, and",
             "take CPU per sign-in from `signin.sh`.", ""]
    titles = {"signin": "Whole sign-ins", "login_64": "`GET /auth/google/login` at 64 connections"}
    for key, run in profile["runs"].items():
        unit = run["operation"]
        lines += [f"**{titles.get(key, key)}**: {run['per_s']:,} {unit}s/s, server CPU {run['cpu_us_per_op']:,.1f} µs "
                  f"per {unit}; {run['samples']:,} samples, kernel {run['kernel_percent']:.1f} %, user "
                  f"{run['user_percent']:.1f} %.", ""]
        for heading, rows in (("kernel, by system call", run["syscalls"]), ("user, by library", run["libraries"])):
            lines += [f"| {heading} | % of samples | µs per {unit} |", "|---|---:|---:|"]
            lines += [f"| `{row['name']}` | {row['percent']:.1f} | {row['us']:,.1f} |" for row in rows]
            lines.append("")
    lines += [f"{profile['signins']} sign-ins and {profile['seconds']:g} s of logins, perf at {profile['frequency']} "
              f"Hz; load average {profile['load']['before']} before, {profile['load']['after']} after.", ""]
    return lines


def peer_section(peer: dict | None) -> list[str]:
    lines = ["## Against the C peer (`Benchmarks/peer.sh`)", ""]
    if not peer:
        return lines + ["Not measured yet: run `Benchmarks/peer.sh` on a quiet machine.", ""]
    lines += ["`authflow serve` and Apache httpd 2.4 with mod_auth_openidc (event MPM, one child, shm session cache), "
              "both signing in against the same `authflow sandbox` (Google OIDC + PKCE). A sign-in start is "
              "`/auth/google/login` against a protected location without a session; a session check is "
              "`/auth/check` against the protected location with a session cookie.", "",
              "| server | sign-in starts @64 (/s) | checks @64 (/s) | CPU per check (µs) | check latency @1 (µs) "
              "| CPU per sign-in (ms) |", "|---|---:|---:|---:|---:|---:|"]
    for row in peer["rows"]:
        lines.append(f"| {row['server']} | {row['login_64_rps']:,} | {row['check_64_rps']:,} | {row['check_64_cpu_us']:.1f} "
                     f"| {row['check_1_mean_us']:.1f} | {row['signin_cpu_ms']:.3f} |")
    lines += ["", "| ratio to mod_auth_openidc | starts @64 | checks @64 | CPU per check | latency @1 | CPU per sign-in |",
              "|---|---:|---:|---:|---:|---:|"]
    for row in peer["rows"]:
        if row["server"] == "mod_auth_openidc":
            continue
        ratios = {key: "–" if value is None else f"{value:.2f}" for key, value in row["vs_peer"].items()}
        lines.append(f"| {row['server']} | {ratios['login_64']} | {ratios['check_64']} | {ratios['check_64_cpu']} | "
                     f"{ratios['check_1']} | {ratios['signin_cpu']} |")
    lines += ["", f"Best of {peer['rounds']} interleaved rounds of {peer['seconds']:g} s wrk runs and {peer['count']} "
              f"sign-ins; load average {peer['load']['before']} before, {peer['load']['after']} after. Goal: CPU per "
              "sign-in ≤ 0.6 × mod_auth_openidc. The peer keeps no accounts and its tokens unencrypted in shared "
              "memory (see `Benchmarks/README.md`), so the memory-store row is the closer match in work.", ""]
    return lines


def mix_section(mix: dict | None) -> list[str]:
    lines = ["## Traffic mix (`Benchmarks/mix.sh`)", ""]
    if not mix:
        return lines + ["Not measured yet: run `Benchmarks/mix.sh` on a quiet machine.", ""]
    checks = int(mix["ratio"].split(":")[0])
    lines += [f"Session checks with sign-ins, logouts, anonymous requests and session reads between them at "
              f"{mix['ratio']} (checks : sign-ins : logouts : anonymous : session reads), {mix['connections']} "
              "connections; the same checks alone for comparison.", "",
              "| deployment | checks/s alone | checks/s in the mix | ÷ alone | p50 (µs) | p99 (µs) | server CPU per check "
              "(µs), alone → mix | CPU ceiling | store round trips per check (alone) | mix reached |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in mix["rows"]:
        reached = row["reached"]
        per = checks / reached["checks"] if reached["checks"] else 0
        cpu = (f"{row['server_cpu_us_per_check_alone']:.1f} → {row['server_cpu_us_per_check_mix']:.1f}"
               if "server_cpu_us_per_check_mix" in row else "–")
        ceiling = (f"{row['server_cpu_us_per_check_alone'] / row['server_cpu_us_per_check_mix']:.2f}"
                   if row.get("server_cpu_us_per_check_mix") else "–")
        trips = (f"{row['store_round_trips_per_check']:.4f} ({row['store_round_trips_alone_per_check']:.4f})"
                 if row["store_round_trips_per_check"] is not None else "not countable (in process)")
        lines.append(f"| {row['deployment']} | {row['checks_alone_per_s']:,} | {row['checks_mix_per_s']:,} | "
                     f"{row['mix_vs_alone']:.2f} | {row['mix_p50_us']:,} | {row['mix_p99_us']:,} | {cpu} | {ceiling} | {trips} | "
                     f"{checks}:"
                     f"{reached['signins'] * per:.1f}:{reached['logouts'] * per:.1f}:{reached['anonymous'] * per:.1f}:"
                     f"{reached['session_reads'] * per:.1f} |")
    for row in mix["rows"]:
        unexpected = row.get("unexpected_answers", {})
        if unexpected.get("mix") or unexpected.get("alone"):
            lines += ["", f"{row['deployment']}: answers other than expected (by status) in the mix "
                      f"{unexpected.get('mix') or '{}'}, alone {unexpected.get('alone') or '{}'}"
                      + (f"; for example `{row['unexpected_sample']}`." if row.get("unexpected_sample") else ".")]
        if row.get("signin_or_logout_failures"):
            lines += ["", f"{row['deployment']}: {row['signin_or_logout_failures']} sign-ins or logouts failed."]
        if row.get("ratio_not_reached"):
            lines += ["", f"{row['deployment']}: {row['ratio_not_reached']}."]
    lines += ["", f"Best of {mix['rounds']} rounds of {mix['seconds']:g} s; load average {mix['load']['before']} before, "
              f"{mix['load']['after']} after. Goals: checks in the mix ≥ 0.9 × alone, store round trips per check "
              "< 0.05 (Redis commands plus PostgreSQL transactions, from the stores' own counters). The latency "
              "percentiles are over wrk's requests (checks, anonymous requests and session reads); the sign-ins and "
              "logouts come from browsers beside wrk, paced to the ratio, and `mix reached` says how near they came. "
              "The browsers and the sandbox share the client core with wrk: where checks/s drop in the mix, the server "
              "CPU per check (every instance's CPU over the run ÷ checks answered, the other requests' share "
              "included) says how much of it is the server's. `CPU ceiling` is that figure alone ÷ in the mix: with "
              "the server's core busy, the most checks in the mix can reach of checks alone, since every sign-in, "
              "logout, anonymous request and session read takes server CPU the checks then lack.",
              ""]
    return lines


def memory_section(memory: dict | None) -> list[str]:
    lines = ["## Memory (`Benchmarks/memory.sh`)", ""]
    if not memory:
        return lines + ["Not measured yet: run `Benchmarks/memory.sh` on a quiet machine.", ""]
    peer = memory.get("peer_sessions", memory["sessions"])
    peer_note = "" if peer == memory["sessions"] else (
        f"; {peer:,} for mod_auth_openidc, whose shm cache finds an entry by scanning its slots, so its sign-ins "
        "slow down as sessions grow (`--peer-sessions`)")
    lines += [f"Resident set (MB) at rest, with {memory['sessions']:,} live sessions (AuthFlow's memory store; "
              f"mod_auth_openidc's shm cache, sized for them{peer_note}), then with those sessions and "
              f"{memory['connections']:,} idle keep-alive connections. Apache's parent and child are summed; PSS "
              "counts the pages they share once.", "",
              "| server | at rest | live sessions | sign-ins/s making them | with sessions | bytes per session | PSS "
              "with sessions | with sessions and idle connections | bytes per connection |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in memory["rows"]:
        lines.append(f"| {row['server']} | {row['rest_rss_kib'] / 1024:,.1f} | {row['sessions']:,} | "
                     f"{row['sessions_per_s']:,.0f} | {row['sessions_rss_kib'] / 1024:,.1f} | "
                     f"{row['bytes_per_session']:,} | {row['sessions_pss_kib'] / 1024:,.1f} | "
                     f"{row['connections_rss_kib'] / 1024:,.1f} | {row['bytes_per_connection']:,} |")
    lines += ["", "Connections answered and held: " + ", ".join(
        f"{row['server']} {row['connections_answered']:,}" for row in memory["rows"]) + "; sessions made: " + ", ".join(
        f"{row['server']} {row['sessions']:,}" for row in memory["rows"]) + f". Load average {memory['load']['before']} "
        f"before, {memory['load']['after']} after. mod_auth_openidc creates its shm cache (`OIDCCacheShmMax` slots, two "
        "per session here, for the session and its nonce's replay entry) when it starts, and part of it can be "
        "resident before any session exists: compare the columns with sessions, not only the bytes per session.", ""]
    return lines


def tracing_section(tracing: dict | None) -> list[str]:
    if not tracing:
        return []
    lines = ["## Tracing and the audit log (`Benchmarks/tracing.sh`)", "",
             "Whole sign-ins as in `signin.sh`, then `/auth/check` under wrk (64 connections), with `server.tracing` "
             "and `server.audit_log` off, exporting spans to a live OTLP/HTTP receiver, exporting to a collector "
             "that is down (every export refused), and writing the audit log to a file. Goal: each option costs "
             "at most 5 % of checks/s and of CPU per sign-in against `off`; a down collector should cost nothing "
             "measurable (docs/tracing.md).", "",
             "| option | sign-ins/s | app CPU per sign-in (ms) | user (ms) | system (ms) | checks/s "
             "| server CPU per check (µs) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for name, run in tracing["configurations"].items():
        checks = f"{run['checks_per_s']:,.0f}" if run.get("checks_per_s") is not None else "–"
        lines.append(f"| {name} | {number(run['signins_per_s'], 1)} | {number(run['cpu_ms_per_signin'], 3)} | "
                     f"{number(run['user_ms_per_signin'], 3)} | {number(run['system_ms_per_signin'], 3)} | {checks} "
                     f"| {number(run.get('cpu_us_per_check'), 1)} |")
    command = f"`Benchmarks/tracing.sh --count {tracing['count']} --rounds {tracing['rounds']}"
    command += f" --seconds {tracing['seconds']:g}`" if "seconds" in tracing else "`"
    lines += ["", f"{command}: best of {tracing['rounds']} rounds of {tracing['count']}; "
              f"{tracing['exports_received']} exports reached the receiver"
              + (f", {tracing['audit_events']} sign-ins reached the audit log" if "audit_events" in tracing else "")
              + f"; load average {tracing['load']['before']} before, {tracing['load']['after']} after. CPU per "
              "sign-in is read from /proc in 10 ms ticks: compare the rows of one run, with enough sign-ins. The "
              "server CPU per check is the server's /proc ticks over the wrk run divided by the requests wrk "
              "counted (best of the runs): the OTLP receiver shares the client core with wrk and can hold checks/s "
              "down, never this figure.", ""]
    return lines


def number(value: float | None, digits: int) -> str:
    """A figure with `digits` decimals, or "n/a" when the run could not measure it (a ratio over a CPU time that
    stayed under one 10 ms /proc tick, as in a few-ceremony smoke run on a fast machine)."""
    return "n/a" if value is None else f"{value:.{digits}f}"


def passkey_section(passkey: dict | None) -> list[str]:
    lines = ["## Passkeys (`Benchmarks/passkey.sh`)", ""]
    if not passkey:
        return lines + ["Not measured yet: run `Benchmarks/passkey.sh` on a quiet machine.", ""]
    names = {"google_oidc_signin": "Google OIDC sign-in (whole: redirect, consent, callback, token, id_token)",
             "passkey_registration": "passkey registration (options + credential, a new user)",
             "passkey_signin": "passkey sign-in (options + assertion, a returning user)"}
    lines += ["| ceremony | server CPU per ceremony (ms) | × Google sign-in |", "|---|---:|---:|"]
    for key, label in names.items():
        lines.append(f"| {label} | {number(passkey['cpu_ms'][key], 3)} | {number(passkey['vs_google'][key], 2)} |")
    lines += ["", f"`authflow serve` on SQLite, its CPU from /proc; best of {passkey['rounds']} rounds of "
              f"{passkey['count']}; python-fido2 as the authenticator on the client core. Load average "
              f"{passkey['load']['before']} before, {passkey['load']['after']} after.", ""]
    return lines


def dpop_section(dpop: dict | None) -> list[str]:
    lines = ["## DPoP (`Benchmarks/dpop.sh`)", ""]
    if not dpop:
        return lines + ["Not measured yet: run `Benchmarks/dpop.sh` on a quiet machine.", ""]
    lines += ["One `authflow serve` on SQLite with two `type: oidc` providers on the OpenID issuer of one "
              "`authflow sandbox --dpop`, the same client (secret, `client_secret_basic`, PKCE, id_token, userinfo); "
              "only `dpop:` differs: with `true`, a P-256 key per sign-in, `dpop_jkt`, a proof on the token and "
              "userinfo requests, `token_type: DPoP` and the key sealed with the stored tokens.", "",
              "| provider | sign-ins/s | server CPU per sign-in (ms) | user (ms) | system (ms) | token and userinfo "
              "calls per sign-in |", "|---|---:|---:|---:|---:|---:|"]
    for name, run in dpop["providers"].items():
        proved = " (each with a proof)" if name == "dpop" else ""
        lines.append(f"| {name} (`dpop: {'true' if name == 'dpop' else 'false'}`) | {number(run['signins_per_s'], 1)} "
                     f"| {number(run['cpu_ms_per_signin'], 3)} | {number(run['user_ms_per_signin'], 3)} | "
                     f"{number(run['system_ms_per_signin'], 3)} | {number(run.get('calls_per_signin'), 2)}{proved} |")
    lines += ["", f"DPoP adds {number(dpop['cpu_ms_difference'], 3)} ms of server CPU per sign-in over "
              f"{number(dpop['proved_calls_per_signin'], 2)} provider calls with a proof (counted from the server's "
              f"`authflow_provider_requests_total`): {number(dpop['cpu_us_per_proved_call'], 1)} µs per call, the "
              "once-per-sign-in work (the key, its thumbprint, sealing it with the tokens) spread over the calls."]
    jose = dpop.get("jose")
    if jose:
        lines += [f"JOSEBenchmark on one core: one DPoP proof {number(jose.get('dpop_proof_us'), 2)} µs, the P-256 key "
                  f"of a sign-in {number(jose.get('dpop_key_us'), 2)} µs, one ES256 id_token signature "
                  f"{number(jose.get('es256_sign_us'), 2)} µs."]
    lines += ["", f"Best of {dpop['rounds']} rounds of {dpop['count']}, interleaved; load average "
              f"{dpop['load']['before']} before, {dpop['load']['after']} after. CPU per sign-in is read from /proc "
              "in 10 ms ticks: the difference needs enough sign-ins to stand above them.", ""]
    return lines


def main() -> None:
    jose, server, signin, callgrind = (load(name) for name in ("jose", "server", "signin", "callgrind"))
    chart(jose, server, signin, load("peer"))
    text = markdown(jose, server, signin, callgrind)
    text += "\n" + "\n".join(peer_section(load("peer")))
    text += "\n" + "\n".join(mix_section(load("mix")))
    text += "\n" + "\n".join(memory_section(load("memory")))
    text += "\n" + "\n".join(tracing_section(load("tracing")))
    text += "\n" + "\n".join(passkey_section(load("passkey")))
    text += "\n" + "\n".join(dpop_section(load("dpop")))
    profile = load("profile")
    if profile:
        text += "\n" + "\n".join(profile_section(profile))
    # Written by hand from instruction counts (stable under load): where each unmet goal's time goes.
    notes = BENCH_DIR / "unmet-goals.md"
    if notes.exists():
        text += "\n" + notes.read_text()
    REPORT.write_text(text)
    print(f"wrote {REPORT} and {CHART}")


if __name__ == "__main__":
    main()
