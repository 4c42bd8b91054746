"""Durability of the SQLite store across a crash: Apple sends the user's name only at the first sign-in,
so it must be on disk before the callback answers; the server is SIGKILLed right after and restarted on
the same database."""

from __future__ import annotations

from authflow_harness import Identity, expect_redirect


def test_apple_first_login_name_survives_a_crash(servers):
    config, _ = servers.config()
    first = servers.start(config, label="before-crash")
    identity = Identity.fresh("apple", name="Katherine Johnson")
    browser = first.browser("first")
    flow = browser.sign_in("apple", identity)
    assert "user" in dict(flow.callback.fields), "the sandbox sends Apple's user field at the first consent"
    expect_redirect(flow.result, "/", context="first Apple sign-in")
    before = browser.session_info().json()  # a read: it makes nothing durable that was not already
    assert before["name"] == "Katherine Johnson", before
    first.kill()  # SIGKILL right after the callback completed: no graceful shutdown, no flush
    assert first.exit_code == -9

    second = servers.start(config, label="after-crash")
    # Apple sends no `user` field after the first consent (the restarted sandbox forgot that consent,
    # so drop it as Apple would).
    returning = second.browser("returning")
    flow = returning.sign_in("apple", identity, drop_fields=("user",))
    assert "user" not in dict(flow.callback.fields)
    expect_redirect(flow.result, "/", context="second Apple sign-in after the crash")
    session = returning.session_info().json()
    assert session["user_id"] == before["user_id"], (session, before)
    assert session["subject"] == identity.subject
    assert session["name"] == "Katherine Johnson", session
    # The session the first sign-in created was in the store too.
    old_session = second.browser("first, again")
    for cookie in browser.session.cookies:
        old_session.session.cookies.set_cookie(cookie)
    response = old_session.session_info()
    assert response.status_code == 200, f"the session created before the crash was lost: {response.text}"
    assert response.json()["user_id"] == before["user_id"]
    assert second.stop() == 0
