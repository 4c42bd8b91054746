#!/usr/bin/env python3
"""What a passkey costs the server: CPU per passkey registration and per passkey sign-in (the two requests of
each ceremony: options, then the credential) against CPU per whole Google OIDC sign-in (login redirect →
sandbox consent → callback → token exchange → id_token verification), on one `authflow serve` with the SQLite
store, from /proc/PID/stat (utime + stime of the server alone). Run by Benchmarks/passkey.sh.

The authenticator side is python-fido2 (Yubico's library) building the client data, authenticator data, COSE
key and attestation object a browser and a platform authenticator would send, with an ES256 key per
credential; it runs on the client core with the sandbox, so it never shows in the server's CPU. Each
registration is a new user (a sign-up), each passkey sign-in a returning one with a discoverable credential.
Prints a table and one JSON object on its last line (also written to Benchmarks/results/passkey.json).
"""
from __future__ import annotations

import argparse
import json
import os
import time

import requests
import yaml
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.utils import sha256, websafe_decode, websafe_encode
from fido2.webauthn import AttestationObject, AttestedCredentialData, AuthenticatorData, CollectedClientData

from benchlib import (CLIENT_CORE, SERVER_CORE, Browser, Processes, authflow_config, cpu_times, free_port, log,
                      machine_load, pin_driver, start_sandbox, wait_http, write_result)

FLAGS = AuthenticatorData.FLAG


class Authenticator:
    """One ES256 discoverable credential, as a platform authenticator keeps it (user verified)."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.user_handle = b""
        self.count = 0

    def attest(self, options: dict, origin: str) -> dict:
        public_key = options["publicKey"]
        self.user_handle = websafe_decode(public_key["user"]["id"])
        client_data = CollectedClientData.create(
            type=CollectedClientData.TYPE.CREATE, challenge=websafe_decode(public_key["challenge"]), origin=origin)
        credential = AttestedCredentialData.create(
            b"\0" * 16, self.credential_id, ES256.from_cryptography_key(self.key.public_key()))
        data = AuthenticatorData.create(
            sha256(public_key["rp"]["id"].encode()), FLAGS.UP | FLAGS.UV | FLAGS.AT, 0, credential)
        return {"id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id),
                "type": "public-key", "clientExtensionResults": {},
                "response": {"clientDataJSON": websafe_encode(bytes(client_data)),
                             "attestationObject": websafe_encode(bytes(AttestationObject.create("none", data, {}))),
                             "transports": ["internal"]}}

    def assert_(self, options: dict, origin: str) -> dict:
        public_key = options["publicKey"]
        self.count += 1
        client_data = CollectedClientData.create(
            type=CollectedClientData.TYPE.GET, challenge=websafe_decode(public_key["challenge"]), origin=origin)
        data = AuthenticatorData.create(sha256(public_key["rpId"].encode()), FLAGS.UP | FLAGS.UV, self.count)
        signature = self.key.sign(bytes(data) + client_data.hash, ec.ECDSA(hashes.SHA256()))
        return {"id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id),
                "type": "public-key", "clientExtensionResults": {},
                "response": {"clientDataJSON": websafe_encode(bytes(client_data)),
                             "authenticatorData": websafe_encode(bytes(data)), "signature": websafe_encode(signature),
                             "userHandle": websafe_encode(self.user_handle)}}


def post(session: requests.Session, app: str, path: str, body: dict) -> dict:
    answer = session.post(f"{app}/auth/passkey/{path}", data=json.dumps(body), timeout=30,
                          headers={"Content-Type": "application/json", "Origin": app})
    if answer.status_code != 200:
        raise RuntimeError(f"POST /auth/passkey/{path}: expected 200, found {answer.status_code}: {answer.text[:300]}")
    return answer.json()


def register(app: str, authenticator: Authenticator, name: str) -> None:
    browser = requests.Session()
    browser.trust_env = False
    options = post(browser, app, "register/options", {"name": name})
    post(browser, app, "register", {"ceremony": options["ceremony"], "credential": authenticator.attest(options, app)})


def authenticate(app: str, authenticator: Authenticator) -> None:
    browser = requests.Session()
    browser.trust_env = False
    options = post(browser, app, "authenticate/options", {})
    post(browser, app, "authenticate",
         {"ceremony": options["ceremony"], "credential": authenticator.assert_(options, app), "session": "cookie"})


def cpu_ms_per(pids: list[int], count: int, body) -> float:
    user_before, system_before = cpu_times(pids)
    for index in range(count):
        body(index)
    user_after, system_after = cpu_times(pids)
    return ((user_after - user_before) + (system_after - system_before)) * 1000 / count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--authflow", required=True, help="the release authflow binary")
    parser.add_argument("--count", type=int, default=300, help="ceremonies of each kind per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pin_driver()
    load_before = machine_load()

    with Processes() as processes:
        port = free_port()
        sandbox = start_sandbox(processes, args.authflow, [f"http://127.0.0.1:{port}/auth/{{provider}}/callback"],
                                core=CLIENT_CORE)
        path = authflow_config(processes.directory, port, sandbox, "sqlite", rate_limits_off=True)
        config = yaml.safe_load(path.read_text())
        config["providers"]["passkey"] = {"type": "passkey"}  # rp_id and origin: the host of public_url
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        server = processes.start([args.authflow, "serve", "--config", str(path)], "authflow")
        app = f"http://127.0.0.1:{port}"
        wait_http(app + "/healthz", server)
        pids = [server.pid]

        # Warm-up: the provider's keys fetched, the connections open, one user of each kind.
        google = Browser(sandbox)
        google.sign_in(f"{app}/auth/google/login?return_to=/", subject="7" + "0" * 19)
        warm = Authenticator()
        register(app, warm, "warm-up@example.com")
        authenticate(app, warm)

        best = {}
        for round_number in range(1, args.rounds + 1):
            log(f"round {round_number}/{args.rounds}: {args.count} of each")
            authenticators = [Authenticator() for _ in range(args.count)]
            base = 8 * 10**19 + round_number * 10**6
            runs = {
                "google_oidc_signin": cpu_ms_per(pids, args.count, lambda i: Browser(sandbox).sign_in(
                    f"{app}/auth/google/login?return_to=/", subject=str(base + i))),
                "passkey_registration": cpu_ms_per(pids, args.count, lambda i: register(
                    app, authenticators[i], f"bench-{round_number}-{i}@example.com")),
                "passkey_signin": cpu_ms_per(pids, args.count, lambda i: authenticate(app, authenticators[i])),
            }
            for name, value in runs.items():
                best[name] = min(best.get(name, value), value)

    google_ms = best["google_oidc_signin"]
    print(f"{'operation':<24}{'server CPU ms':>14}{'× Google sign-in':>18}")
    for name, value in best.items():
        print(f"{name:<24}{value:>14.3f}{value / google_ms if google_ms else float('nan'):>18.3f}")
    load = {"before": load_before, "after": machine_load()}
    print(f"(server CPU per ceremony from /proc, best of {args.rounds} rounds of {args.count}; authflow on core "
          f"{SERVER_CORE}, the sandbox and the authenticator on core {CLIENT_CORE}; load average {load['before']} "
          f"before, {load['after']} after)")
    result = {"benchmark": "passkey", "count": args.count, "rounds": args.rounds, "load": load,
              "cpu_ms": {name: round(value, 3) for name, value in best.items()},
              "vs_google": {name: round(value / google_ms, 3) if google_ms else None for name, value in best.items()}}
    write_result("passkey", result)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
