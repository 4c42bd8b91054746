"""Durability of the SQLite store across a crash: Apple sends the user's name only at the first sign-in,
so it must be on disk before the callback answers; the server is SIGKILLed right after and restarted on
the same database.

Sandbox mode is throwaway (a generated secret and a temporary store each run), so this runs `serve` in
normal mode against a standalone `authflow sandbox` process, configured from the providers.yaml fragment
the sandbox writes for its demo clients."""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

import authflow_harness as harness
import shared_deployment
from authflow_harness import Identity, expect_redirect


@pytest.fixture
def standalone_sandbox(servers):
    """`authflow sandbox` on a free loopback port, with demo clients redirecting to a free app port."""
    directory = servers.directory()
    app_port = harness.free_port()
    with shared_deployment.standalone_sandbox(directory / "credentials", f"http://localhost:{app_port}") as (
            sandbox_url, fragment):
        yield directory, app_port, sandbox_url, fragment


def test_apple_first_login_name_survives_a_crash(servers, standalone_sandbox):
    directory, port, sandbox_url, fragment = standalone_sandbox
    config = Path(directory) / "providers.yaml"
    config.write_text("\n".join([
        "server:",
        f"  listen: 127.0.0.1:{port}",
        f"  public_url: http://localhost:{port}",
        f"  secret: {secrets.token_hex(32)}",
        "store:",
        "  kind: sqlite",
        f"  path: {Path(directory) / 'authflow.sqlite'}",
        "",
    ]) + fragment + "\n")

    first = servers.start(config, sandbox=False, label="before-crash")
    identity = Identity.fresh("apple", name="Katherine Johnson")
    browser = harness.Browser(first.app_url, sandbox_url, name="first")
    flow = browser.sign_in("apple", identity)
    assert "user" in dict(flow.callback.fields), "the sandbox sends Apple's user field at the first consent"
    expect_redirect(flow.result, "/", context="first Apple sign-in")
    before = browser.session_info().json()  # a read: it makes nothing durable that was not already
    assert before["name"] == "Katherine Johnson", before
    first.kill()  # SIGKILL right after the callback completed: no graceful shutdown, no flush
    assert first.exit_code == -9

    second = servers.start(config, sandbox=False, label="after-crash")
    # Apple sends no `user` field after the first consent; drop it as Apple would.
    returning = harness.Browser(second.app_url, sandbox_url, name="returning")
    flow = returning.sign_in("apple", identity, drop_fields=("user",))
    assert "user" not in dict(flow.callback.fields)
    expect_redirect(flow.result, "/", context="second Apple sign-in after the crash")
    session = returning.session_info().json()
    assert session["user_id"] == before["user_id"], (session, before)
    assert session["subject"] == identity.subject
    assert session["name"] == "Katherine Johnson", session
    # The session the first sign-in created was in the store too.
    old_session = harness.Browser(second.app_url, sandbox_url, name="first, again")
    for cookie in browser.session.cookies:
        old_session.session.cookies.set_cookie(cookie)
    response = old_session.session_info()
    assert response.status_code == 200, f"the session created before the crash was lost: {response.text}"
    assert response.json()["user_id"] == before["user_id"]
    assert second.stop() == 0


def test_sandbox_mode_never_opens_the_configured_store(servers):
    """`serve --sandbox` on a configuration with a secret and a SQLite path runs on a throwaway store, so
    nothing it signs in reaches the configured one (issue 13, finding 1)."""
    config, _ = servers.config()
    demo = servers.start(config, label="sandbox-mode")
    identity = Identity.fresh("google")
    browser = demo.browser("demo")
    expect_redirect(browser.sign_in("google", identity).result, "/", context="sandbox sign-in")
    assert browser.session_info().status_code == 200
    assert demo.stop() == 0
    assert not (config.parent / "authflow.sqlite").exists(), "sandbox mode opened the configured store"
