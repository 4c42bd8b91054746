"""Expiries, checked by moving the server's wall clock forward (Tests/e2e/clockshim) instead of waiting:
a sign-in state older than the flow lifetime (10 minutes), a session past `session_ttl`, and an Apple
notification past its `exp` (5 minutes, plus the 60 s leeway) are all refused."""

from __future__ import annotations

import time
from datetime import datetime

import pytest

from authflow_harness import Identity, capture_notification, expect_error, expect_redirect, post_notification

FLOW_LIFETIME = 600  # OAuthFlow.Options.flowTTL default


@pytest.mark.parametrize("provider", ["google", "apple"])
def test_expired_state_is_refused(servers, server_clock, provider):
    app = servers.launch(env_extra=server_clock.env())
    browser = app.browser()
    # Control: at the server's present time the same steps sign in.
    expect_redirect(browser.sign_in(provider, Identity.fresh(provider)).result, "/", context="control")
    flow = browser.start(provider)
    browser.consent(flow, Identity.fresh(provider))
    callback = browser.callback_from(flow)
    server_clock.advance(FLOW_LIFETIME + 120)
    response = browser.deliver(callback)
    expect_error(response, ("state_expired", "invalid_state"), context=f"{provider} state after the flow lifetime")


def test_session_ends_after_session_ttl(servers, server_clock):
    app = servers.launch(env_extra=server_clock.env())  # session_ttl: 1h
    browser = app.browser()
    browser.signed_in("facebook", Identity.fresh("facebook"))
    server_clock.advance(30 * 60)
    assert browser.session_info().status_code == 200, "the session ended before its lifetime"
    server_clock.advance(31 * 60)
    assert browser.session_info().status_code == 401
    assert browser.check().status_code == 401


def test_expired_notification_is_refused(servers, server_clock):
    app = servers.launch(env_extra=server_clock.env())
    browser = app.browser()
    identity = Identity.fresh("apple")
    browser.signed_in("apple", identity)
    body = capture_notification(app, "consent-revoked", identity.subject)
    server_clock.advance(300 + 60 + 60)  # past exp and the leeway
    expect_error(post_notification(app, body), "invalid_notification", (400,), context="expired notification")
    assert browser.session_info().status_code == 200, "a refused notification must change nothing"


def test_session_expiry_follows_the_server_clock(servers, server_clock):
    """The shim moves the server's notion of now (so the expiry tests above are not vacuous), and
    `expires_at` is the sign-in time plus `session_ttl` (1 h)."""
    app = servers.launch(env_extra=server_clock.env())
    server_clock.advance(86_400)
    browser = app.browser()
    started = time.time() + 86_400
    session = browser.signed_in("x", Identity.fresh("x"))
    expires = datetime.fromisoformat(session["expires_at"].replace("Z", "+00:00")).timestamp()
    assert abs(expires - (started + 3600)) < 120, (session["expires_at"], started)
