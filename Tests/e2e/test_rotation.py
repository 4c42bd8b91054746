"""Rotating `server.secret` across two `authflow serve` instances sharing one PostgreSQL and one Redis.

The procedure of docs/operations.md, one instance at a time: both start on the old secret; instance A is
restarted with a new `server.secret` and the old one in `server.previous_secrets`, then instance B; last
both drop the old secret. What the old secret sealed (a flow cookie of a sign-in begun before the
rotation, a native nonce, provider tokens stored at sign-in) keeps working on whichever instance is rotated,
and a stored token written again after the rotation is sealed under the new secret. Once the old secret is
dropped, what only it sealed is refused. Sessions are random ids kept as SHA-256 digests, keyed by no
secret: they outlive every step.

A stored token is observed through its revocation: deleting the account makes the instance decrypt the
user's tokens and revoke them at the sandbox, which lists what it received.
"""

from __future__ import annotations

import hashlib
import secrets
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import authflow_harness as harness
from authflow_harness import Identity, expect_error, expect_redirect
from shared_deployment import shared_services
from store_servers import PostgresServer, RedisServer
from test_instances import (GOOGLE_ANDROID_CLIENT, Upstream, google_client_id, status_of, wait_for,
                            with_native_google_client)

#: Bound for a change made on one instance to be seen on the other (the session cache keeps 1 s).
PROPAGATION_DEADLINE = 10


@dataclass
class Instance:
    label: str
    config: Path
    port: int
    process: harness.ServerProcess | None = None


@dataclass
class Rotation:
    public_url: str
    sandbox_url: str
    google_client_id: str
    fragment: str
    postgres: PostgresServer
    redis: RedisServer
    servers: object
    a: Instance
    b: Instance
    old: str = field(default_factory=lambda: secrets.token_hex(32))
    new: str = field(default_factory=lambda: secrets.token_hex(32))

    def configure(self, instance: Instance, secret: str, previous: list[str]) -> None:
        """(Re)starts `instance` with `secret` and `previous_secrets` (the old one given through `${VAR}`,
        as a deployment keeps secrets out of the file)."""
        if instance.process is not None:
            instance.process.stop()
        lines = [
            "server:",
            f"  listen: 127.0.0.1:{instance.port}",
            f"  public_url: {self.public_url}",
            f"  secret: {secret}",
            "  allowed_return_to: [/]",
            "  session_ttl: 1h",
        ]
        environment = {}
        if previous:
            lines.append("  previous_secrets:")
            for index, value in enumerate(previous):
                environment[f"AUTHFLOW_PREVIOUS_SECRET_{index}"] = value
                lines.append(f"    - ${{AUTHFLOW_PREVIOUS_SECRET_{index}}}")
        lines += ["store:", "  kind: postgres", f"  postgres_url: {self.postgres.url}",
                  f"  redis_url: {self.redis.url}", ""]
        instance.config.write_text("\n".join(lines) + self.fragment + "\n")
        instance.process = self.servers.start(instance.config, sandbox=False, label=instance.label,
                                              env_extra=environment)
        instance.port = int(instance.process.listen_url.rsplit(":", 1)[1])

    def browser(self, name: str, instance: Instance) -> "Visitor":
        return Visitor(self, name, instance)

    def revocations(self) -> list[dict]:
        response = harness.direct.get(self.sandbox_url + "/_sandbox/revocations", timeout=harness.HTTP_TIMEOUT)
        assert response.status_code == 200, status_of(response)
        return response.json()["revocations"]

    def native_nonce(self, instance: Instance) -> str:
        answer = harness.direct.post(instance.process.listen_url + "/auth/google/native/nonce",
                                     timeout=harness.HTTP_TIMEOUT)
        assert answer.status_code == 200, status_of(answer)
        return answer.json()["nonce"]

    def native_sign_in(self, instance: Instance, nonce: str):
        token = harness.direct.post(
            self.sandbox_url + "/_sandbox/google/native",
            json={"identity": {"subject": "native-" + secrets.token_hex(6), "email": "mary@example.com",
                               "given_name": "Mary", "family_name": "Jackson"},
                  "audience": self.google_client_id, "authorized_party": GOOGLE_ANDROID_CLIENT,
                  "nonce": hashlib.sha256(nonce.encode()).hexdigest()},
            timeout=harness.HTTP_TIMEOUT)
        assert token.status_code == 200, status_of(token)
        return harness.direct.post(instance.process.listen_url + "/auth/google/native",
                                   json={"id_token": token.json()["id_token"], "nonce": nonce},
                                   timeout=harness.HTTP_TIMEOUT)


class Visitor:
    """A browser whose requests to the public URL reach the instance chosen with `on()`."""

    def __init__(self, rotation: Rotation, name: str, instance: Instance):
        self.browser = harness.Browser(rotation.public_url, rotation.sandbox_url, name=name)
        self.upstream = Upstream(rotation.public_url, instance.process.listen_url)
        self.browser.session.mount(rotation.public_url + "/", self.upstream)

    def on(self, instance: Instance) -> harness.Browser:
        self.upstream.target = instance.process.listen_url
        return self.browser


@pytest.fixture(scope="module")
def rotation(module_servers, tmp_path_factory):
    public_url = f"http://localhost:{harness.free_port()}"  # routed around by the Upstream adapter
    work = tmp_path_factory.mktemp("rotation")
    with shared_services(work, public_url) as services:
        fragment = with_native_google_client(only_google(services.fragment))
        instances = []
        for label in ("A", "B"):
            (work / label).mkdir()
            instances.append(Instance(label, work / label / "providers.yaml", harness.free_port()))
        yield Rotation(public_url=public_url, sandbox_url=services.sandbox_url,
                       google_client_id=google_client_id(fragment), fragment=fragment, postgres=services.postgres,
                       redis=services.redis, servers=module_servers, a=instances[0], b=instances[1])
        module_servers.stop_all()


def only_google(fragment: str) -> str:
    """The sandbox's providers.yaml fragment with only its `google` provider (the one these tests use), so
    providers the server has no plugin for in this build do not stop it."""
    kept, keep = [], True
    for line in fragment.splitlines():
        if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":"):
            keep = line.strip() == "google:"
        if keep or not line.startswith("  "):
            kept.append(line)
    return "\n".join(kept)


def begun(rotation: Rotation, name: str, instance: Instance):
    """A Google sign-in begun and consented through `instance`, its callback not yet delivered."""
    visitor = rotation.browser(name, instance)
    browser = visitor.on(instance)
    flow = browser.start("google")
    browser.consent(flow, Identity.fresh("google"))
    return visitor, flow, browser.callback_from(flow)


def completes(rotation: Rotation, pending, instance: Instance, context: str) -> None:
    visitor, flow, callback = pending
    browser = visitor.on(instance)
    expect_redirect(browser.deliver(callback, flow=flow), "/", context=context)
    assert browser.session_info().status_code == 200, context


def deleted_with_revocation(rotation: Rotation, visitor: Visitor, instance: Instance) -> bool:
    """Deletes the visitor's account through `instance`; whether its Google token reached the sandbox's
    revocation endpoint (it can only if the instance decrypted it)."""
    before = len([entry for entry in rotation.revocations() if entry.get("provider") == "google"])
    response = visitor.on(instance).app_post("/auth/account/delete")
    assert response.status_code == 204, status_of(response)
    after = len([entry for entry in rotation.revocations() if entry.get("provider") == "google"])
    return after > before


def test_a_rolling_rotation_keeps_what_the_old_secret_sealed_and_dropping_it_refuses_it(rotation):
    a, b = rotation.a, rotation.b
    rotation.configure(a, rotation.old, [])
    rotation.configure(b, rotation.old, [])

    # Under the old secret: a session, sign-ins begun (their callbacks pending), native nonces, stored tokens.
    signed_in = rotation.browser("session", a)
    session = signed_in.on(a).signed_in("google", Identity.fresh("google"))
    pending = {label: begun(rotation, f"begun-{label}", a) for label in ("on A", "on B", "after the drop")}
    nonces = {label: rotation.native_nonce(a) for label in ("on A", "on B", "after the drop")}
    kept = rotation.browser("token kept", a)
    kept.on(a).signed_in("google", Identity.fresh("google"))
    stale = rotation.browser("token stale", a)
    stale.on(a).signed_in("google", Identity.fresh("google"))
    rewritten_identity = Identity.fresh("google")
    rewritten = rotation.browser("token rewritten", a)
    rewritten.on(a).signed_in("google", rewritten_identity)

    # A first: new secret in front, the old one kept as previous.
    rotation.configure(a, rotation.new, [rotation.old])
    assert signed_in.on(a).check().status_code == 202
    assert signed_in.on(a).session_info().json()["user_id"] == session["user_id"]
    completes(rotation, pending["on A"], a, "a sign-in begun under the old secret, completed on rotated A")
    answer = rotation.native_sign_in(a, nonces["on A"])
    assert answer.status_code == 200, f"an old-secret nonce on rotated A: {status_of(answer)}"

    # Then B.
    rotation.configure(b, rotation.new, [rotation.old])
    assert signed_in.on(b).check().status_code == 202
    completes(rotation, pending["on B"], b, "a sign-in begun under the old secret, completed on rotated B")
    answer = rotation.native_sign_in(b, nonces["on B"])
    assert answer.status_code == 200, f"an old-secret nonce on rotated B: {status_of(answer)}"
    # A sign-in begun on A under the new secret completes on B.
    completes(rotation, begun(rotation, "begun after the rotation", a), b, "begun on A, completed on B")
    # The token stored under the old secret still decrypts (and is revoked); signing in again writes it anew.
    assert deleted_with_revocation(rotation, kept, b), "an old-secret stored token did not decrypt on rotated B"
    assert rewritten.on(b).signed_in("google", rewritten_identity)["subject"] == rewritten_identity.subject

    # The old secret dropped everywhere.
    rotation.configure(a, rotation.new, [])
    rotation.configure(b, rotation.new, [])
    visitor, flow, callback = pending["after the drop"]
    refused = visitor.on(b).deliver(callback, flow=flow)
    body = expect_error(refused, "browser_binding_mismatch", statuses=(403,),
                        context="a sign-in begun under a dropped secret")
    assert "server.previous_secrets" in body["message"], body
    expect_error(rotation.native_sign_in(b, nonces["after the drop"]), "invalid_nonce", statuses=(400,),
                 context="a nonce issued under a dropped secret")
    # Only the token written again after the rotation still decrypts.
    assert deleted_with_revocation(rotation, rewritten, a), "a token rewritten under the new secret did not decrypt"
    assert not deleted_with_revocation(rotation, stale, a), "a token sealed under a dropped secret was decrypted"
    # Sessions are keyed by no secret: the one made before the rotation lasts its lifetime.
    wait_for("the session on B", lambda: signed_in.on(b).check().status_code == 202, PROPAGATION_DEADLINE)


def test_a_short_previous_secret_stops_serve_naming_its_position(rotation, tmp_path):
    config = tmp_path / "providers.yaml"
    config.write_text("\n".join([
        "server:",
        f"  listen: 127.0.0.1:{harness.free_port()}",
        f"  public_url: {rotation.public_url}",
        f"  secret: {rotation.new}",
        "  previous_secrets:",
        f"    - {rotation.old}",
        "    - too-short-0123456789",
        "store:",
        "  kind: memory",
        "",
    ]) + rotation.fragment + "\n")
    result = subprocess.run([harness.authflow_binary(), "check", "--config", str(config)], capture_output=True,
                            text=True, timeout=harness.STARTUP_TIMEOUT, stdin=subprocess.DEVNULL)
    assert result.returncode != 0, result.stdout + result.stderr
    output = result.stdout + result.stderr
    assert "server.previous_secrets[1] must be at least 32 bytes, found 20 bytes" in output, output
    assert "too-short" not in output and rotation.old not in output, "a secret was printed"
