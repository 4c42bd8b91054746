#!/usr/bin/env python3
"""What DPoP (RFC 9449) costs the server per sign-in and per provider call: one `authflow serve` (SQLite store)
with two `type: oidc` providers on the same issuer, the OpenID issuer of one standalone `authflow sandbox --dpop`
(its Google emulator, which binds tokens to a DPoP key when a token request carries a proof), with the same
client (id, secret, `client_secret_basic`), PKCE S256, discovery, id_token and userinfo:

- `plain`: `dpop: false`: Bearer tokens;
- `dpop`: `dpop: true`: a P-256 key generated per sign-in, its thumbprint sent as `dpop_jkt` in the authorization
  request, a proof (an ES256 JWT with the public jwk, htm, htu, iat, jti, the server's nonce, and ath at userinfo)
  on the token and userinfo requests, `token_type: DPoP` required of the answer, and the key sealed with the
  stored tokens.

That is the only difference. For each, the whole sign-ins of signin_bench.py (login redirect → sandbox consent →
callback → token exchange → id_token verification → userinfo → account and session in SQLite) and the server's
CPU per sign-in from /proc/PID/stat, best of R rounds, the two interleaved (their order alternating). The provider
calls that carried a proof are counted from the server's own metrics (`authflow_provider_requests_total` of the
`dpop` provider at its token and userinfo endpoints, every status: a `use_dpop_nonce` challenge and its retry
are two calls); the cost per call is the CPU difference divided by them, so it spreads the once-per-sign-in work
(the key, its thumbprint, sealing it) over the calls. With `--jose`, the Benchmarks package's JOSEBenchmark times
one proof (`dpop_proof`) and the P-256 key of a sign-in (`dpop_key`) beside one ES256 signature of an id_token
(`es256_sign`) on the server core, best of the same rounds. Run by Benchmarks/dpop.sh; prints a table and one JSON
object on its last line (also written to Benchmarks/results/dpop.json).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess

import requests
import yaml

from benchlib import (CLIENT_CORE, SERVER_CORE, Browser, Processes, authflow_config, config_accepted, driver_cores,
                      free_port, log, machine_load, pin_driver, pinned, start_sandbox, wait_http, write_result)
from signin_bench import measure

PROVIDERS = {"plain": "false", "dpop": "true"}
PROVED_ENDPOINTS = ("token", "userinfo", "revocation")


def provider_calls(metrics_url: str) -> dict[str, int]:
    """Requests each provider of the server made to the endpoints a proof goes to, every status, so far."""
    text = requests.get(metrics_url, timeout=30).text
    calls = {name: 0 for name in PROVIDERS}
    pattern = re.compile(r'^authflow_provider_requests_total\{provider="([^"]+)",endpoint="([^"]+)",[^}]*\}\s+(\S+)$')
    for line in text.splitlines():
        match = pattern.match(line)
        if match and match.group(1) in calls and match.group(2) in PROVED_ENDPOINTS:
            calls[match.group(1)] += int(float(match.group(3)))
    return calls


def start_server(processes: Processes, authflow: str, sandbox, port: int, metrics_port: int):
    """`authflow serve` on SQLite with the two providers, pinned to the server core."""
    path = authflow_config(processes.directory, port, sandbox, "sqlite", rate_limits_off=True,
                           server_extra={"metrics_listen": f"127.0.0.1:{metrics_port}"})
    config = yaml.safe_load(path.read_text())
    google = sandbox.google
    config["providers"] = {
        name: {"type": "oidc", "issuer": google["issuer"], "client_id": google["client_id"],
               "client_secret_file": google["client_secret_file"], "client_auth": "client_secret_basic",
               "dpop": dpop}
        for name, dpop in PROVIDERS.items()}
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    accepted, message = config_accepted(authflow, path)
    if not accepted:
        raise RuntimeError(f"authflow check refused the benchmark configuration: {message}")
    child = processes.start([authflow, "serve", "--config", str(path)], "authflow")
    url = f"http://127.0.0.1:{port}"
    wait_http(url + "/healthz", child)
    return child, url


def require_dpop_sandbox(sandbox) -> None:
    discovery = requests.get(f"{sandbox.google['issuer']}/.well-known/openid-configuration", timeout=30).json()
    if "dpop_signing_alg_values_supported" not in discovery:
        raise RuntimeError("the sandbox's OpenID issuer advertises no DPoP: this authflow's sandbox lacks --dpop")


def jose_round(jose: str, seconds: float) -> dict[str, float]:
    """One ES256 id_token signature, one DPoP proof and one P-256 key generated, ops/s, on the server core."""
    found = {}
    for operation in ("es256_sign", "dpop_proof", "dpop_key"):
        output = subprocess.run(pinned(SERVER_CORE, [jose, str(seconds), operation]), capture_output=True,
                                text=True, timeout=seconds * 10 + 120, check=True).stdout
        found[operation] = json.loads(output)[operation]
    return found


def run_rounds(args, sandbox, url: str, pids: list[int], metrics_url: str) -> tuple[dict, dict]:
    """The interleaved rounds: best CPU per sign-in of each provider, the proved calls per sign-in of each (from
    the best round), and the best JOSE figures."""
    best: dict[str, dict] = {}
    jose: dict[str, float] = {}
    offset = 0
    for round_number in range(1, args.rounds + 1):
        order = list(PROVIDERS) if round_number % 2 else list(reversed(PROVIDERS))
        for name in order:
            log(f"round {round_number}/{args.rounds}: {name}, {args.count} sign-ins")
            offset += args.count + 1
            before = provider_calls(metrics_url)[name]
            run = measure(lambda: Browser(sandbox), f"{url}/auth/{name}/login?return_to=/", f"{url}/auth/check",
                          pids, args.count, offset)
            # measure() signs in once more before it starts the clock: count + 1 sign-ins made these calls.
            run["calls_per_signin"] = (provider_calls(metrics_url)[name] - before) / (args.count + 1)
            if name not in best or run["cpu_ms_per_signin"] < best[name]["cpu_ms_per_signin"]:
                best[name] = run
        if args.jose:
            log(f"round {round_number}/{args.rounds}: JOSEBenchmark es256_sign, dpop_proof, dpop_key")
            for operation, value in jose_round(args.jose, args.jose_seconds).items():
                jose[operation] = max(jose.get(operation, 0), value)
    return best, jose


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    # The difference is a fraction of a sign-in's CPU, which /proc gives in 10 ms ticks: more sign-ins than elsewhere.
    parser.add_argument("--count", type=int, default=500, help="sign-ins per provider and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jose", help="the JOSEBenchmark binary (times one DPoP proof); left out when not given")
    parser.add_argument("--jose-seconds", type=float, default=2, help="seconds per JOSEBenchmark operation")
    args = parser.parse_args()
    pin_driver()
    load_before = machine_load()
    with Processes() as processes:
        port, metrics_port = free_port(), free_port()
        sandbox = start_sandbox(
            processes, args.authflow, [f"http://127.0.0.1:{port}/auth/{name}/callback" for name in PROVIDERS],
            core=CLIENT_CORE, extra_args=["--dpop"])
        require_dpop_sandbox(sandbox)
        server, url = start_server(processes, args.authflow, sandbox, port, metrics_port)
        metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
        # Warm-up of each provider: discovery and JWKS fetched, the sandbox's DPoP nonce learnt, connections open.
        for index, name in enumerate(PROVIDERS):
            Browser(sandbox).sign_in(f"{url}/auth/{name}/login?return_to=/", subject=str(9 * 10**19 + index))
        best, jose = run_rounds(args, sandbox, url, [server.pid], metrics_url)
    report(args, best, jose, {"before": load_before, "after": machine_load()})


def report(args, best: dict, jose: dict, load: dict) -> None:
    plain, dpop = best["plain"], best["dpop"]
    difference = dpop["cpu_ms_per_signin"] - plain["cpu_ms_per_signin"]
    calls = dpop["calls_per_signin"]
    per_call_us = difference * 1000 / calls if calls else None
    print(f"{'provider':<10}{'dpop':>7}{'sign-ins/s':>12}{'CPU ms/sign-in':>16}{'user':>8}{'system':>8}"
          f"{'token+userinfo calls/sign-in':>30}")
    for name, run in best.items():
        print(f"{name:<10}{PROVIDERS[name]:>7}{run['signins_per_s']:>12.1f}{run['cpu_ms_per_signin']:>16.3f}"
              f"{run['user_ms_per_signin']:>8.3f}{run['system_ms_per_signin']:>8.3f}{run['calls_per_signin']:>30.2f}")
    per_call = "n/a" if per_call_us is None else f"{per_call_us:.1f} µs"
    print(f"DPoP adds {difference:.3f} ms of server CPU per sign-in, {calls:.2f} provider calls with a proof "
          f"(token, userinfo): {per_call} per call")
    figures = {}
    if jose:
        figures = {f"{operation}_us": round(1e6 / value, 2) if value else None for operation, value in jose.items()}
        print(f"JOSEBenchmark, one core: one DPoP proof {figures['dpop_proof_us']} µs, one P-256 key "
              f"{figures['dpop_key_us']} µs, one ES256 id_token signature {figures['es256_sign_us']} µs")
    print(f"(server CPU from /proc, best of {args.rounds} rounds of {args.count}, interleaved; the same server, "
          f"sandbox and client for both, only dpop: true/false differs; authflow on core {SERVER_CORE}, sandbox on "
          f"core {CLIENT_CORE}, driver on core {driver_cores()}; load average {load['before']} before, "
          f"{load['after']} after)")
    result = {
        "benchmark": "dpop", "count": args.count, "rounds": args.rounds, "load": load,
        "providers": {name: {key: round(value, 3) for key, value in run.items()} for name, run in best.items()},
        "cpu_ms_difference": round(difference, 3), "proved_calls_per_signin": round(calls, 3),
        "cpu_us_per_proved_call": None if per_call_us is None else round(per_call_us, 1),
        "jose": ({"ops_per_s": {operation: int(value) for operation, value in jose.items()}, **figures}
                 if jose else None),
    }
    write_result("dpop", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
