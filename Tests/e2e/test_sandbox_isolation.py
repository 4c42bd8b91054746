"""`authflow serve --sandbox` never opens the store the configuration names.

Sandbox identities are made up by whoever clicks the consent page; they must never reach a real store. The
configuration below names a real Redis (a redis-server this module starts, holding a key planted under the
configured prefix) and a PostgreSQL URL; the sandbox run must sign in without one connection to either, say
on start which settings it ignores, and leave a key planted under the configured prefix alone. It also forgives an absent `client_id` and one from an unset
`${VAR}` (the sandbox registers its demo clients).
"""

from __future__ import annotations

import shutil
import socket
import subprocess

import pytest

import authflow_harness as harness
from authflow_harness import Identity, expect_redirect
from store_servers import RedisServer, service_directory


@pytest.fixture(scope="module")
def redis():
    directory = service_directory()
    server = RedisServer(directory)
    try:
        yield server.start()
    finally:
        server.close()
        shutil.rmtree(directory, ignore_errors=True)


def admin(redis: RedisServer, *command: str) -> str:
    """One command as Redis's `default` user (not the `authflow` user the configuration names)."""
    result = subprocess.run(
        ["redis-cli", "-h", "127.0.0.1", "-p", str(redis.port), "--user", "default", "--pass",
         redis.admin_password, "--no-auth-warning", *command],
        capture_output=True, text=True, timeout=30, check=True)
    return result.stdout


def connections_received(redis: RedisServer) -> int:
    """Redis's count of connections ever accepted (this query's own connection included)."""
    for line in admin(redis, "INFO", "stats").splitlines():
        if line.startswith("total_connections_received:"):
            return int(line.split(":", 1)[1])
    raise AssertionError("INFO stats has no total_connections_received")


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # closed again when the block ends: nothing listens there


@pytest.mark.parametrize("kind", ["memory", "postgres"])
def test_sandbox_never_opens_the_configured_store(module_servers, redis, kind):
    prefix = f"authflow:iso-{kind}:"
    planted = prefix + "session:planted"
    admin(redis, "SET", planted, "kept")
    port = harness.free_port()
    directory = module_servers.directory()
    config = directory / "providers.yaml"
    store = [f"  kind: {kind}"]
    if kind == "postgres":  # nothing listens there: opening it would fail the start
        store.append(f"  postgres_url: postgresql://authflow@127.0.0.1:{closed_port()}/authflow?connect_timeout=2")
    config.write_text("\n".join([
        "server:",
        f"  listen: 127.0.0.1:{port}",
        f"  public_url: http://localhost:{port}",
        "  secret: ${ISOLATION_SECRET}",
        "store:",
        *store,
        f"  redis_url: {redis.url}",
        f"  redis_prefix: \"{prefix}\"",
        "providers:",
        "  google:",           # no client_id at all
        "    type: google",
        "    client_secret: ${GOOGLE_CLIENT_SECRET}",
        "  x:",
        "    type: x",
        "    client_id: ${UNSET_X_CLIENT_ID}",
        "    client_secret: ${X_CLIENT_SECRET}",
        "",
    ]))
    before = connections_received(redis)
    server = module_servers.start(config, sandbox=True, label=f"sandbox-{kind}",
                                  env_extra={"ISOLATION_SECRET": "s" * 40})
    browser = server.browser("isolated")
    identity = Identity.fresh("google")
    session = browser.signed_in("google", identity)
    assert session["subject"] == identity.subject
    other = server.browser("x-user")
    assert other.signed_in("x", Identity.fresh("x"))["provider"] == "x"
    assert browser.check().status_code in (200, 202)
    assert browser.logout().status_code in (204, 302)

    # The start said what it ignores (once the sign-ins ran, the line is surely written).
    stderr = server.stderr_path.read_text()
    assert "sandbox mode ignores" in stderr, stderr
    ignored = stderr.split("sandbox mode ignores", 1)[1].split(":", 1)[0]
    for key in (["store.postgres_url"] if kind == "postgres" else []) + ["store.redis_url", "server.secret"]:
        assert key in ignored, stderr
    assert "cannot share sign-ins" in stderr, stderr
    assert redis.password not in stderr  # the URL's password is never printed

    # Not one connection reached Redis (the one counted is the INFO query's own), the planted key is there,
    # and nothing else was written under the prefix.
    assert connections_received(redis) == before + 1
    assert admin(redis, "GET", planted).strip() == "kept"
    assert admin(redis, "--scan", "--pattern", prefix + "*").split() == [planted]
