"""Sign in with Apple server-to-server notifications, sent by the sandbox's admin endpoint
(`POST {sandbox}/_sandbox/apple/notify`) and captured by a small receiver so that each signed payload can be
replayed and tampered with: every event type is applied once, replays change nothing, and a payload that
is not Apple's, not for this app, or not intact is refused with 400."""

from __future__ import annotations

import json

import pytest

import authflow_harness as harness
from authflow_harness import APPLE_CLIENT_ID, Identity, capture_notification, expect_error, notify, post_notification


def with_payload(body: bytes, change) -> bytes:
    payload = json.loads(body)["payload"]
    return json.dumps({"payload": change(payload)}).encode()


def flip_character(segment: str, index: int) -> str:
    """Changes one base64url character in the middle of a segment (all 6 bits significant there)."""
    replacement = "B" if segment[index] != "B" else "C"
    return segment[:index] + replacement + segment[index + 1:]


def apple_user(app, name: str = "Mary Jackson", **kwargs) -> tuple[harness.Browser, Identity, dict]:
    browser = app.browser()
    identity = Identity.fresh("apple", name=name, **kwargs)
    return browser, identity, browser.signed_in("apple", identity)


def test_notification_delivered_by_the_sandbox_is_applied(app):
    browser, identity, _ = apple_user(app)
    relay = "relay-" + identity.subject[-8:] + "@privaterelay.appleid.com"
    answer = notify(app, "email-enabled", identity.subject, app.app_url + "/auth/apple/notifications",
                    email=relay, is_private_email="true")
    assert answer.get("status") == 200, answer
    session = browser.session_info().json()
    assert session["email"] == relay, session


def test_email_events_are_applied_once(app):
    browser, identity, _ = apple_user(app)
    first = f"first-{identity.subject[-6:]}@privaterelay.appleid.com"
    second = f"second-{identity.subject[-6:]}@privaterelay.appleid.com"
    enabled = capture_notification(app, "email-enabled", identity.subject, email=first, is_private_email="true")
    disabled = capture_notification(app, "email-disabled", identity.subject, email=second, is_private_email="true")
    for attempt in range(2):
        response = post_notification(app, enabled)
        assert response.status_code == 200, f"email-enabled, attempt {attempt + 1}: {response.text}"
    assert browser.session_info().json()["email"] == first
    assert post_notification(app, disabled).status_code == 200
    assert browser.session_info().json()["email"] == second
    # Replaying the older event (same jti) is acknowledged and changes nothing.
    replay = post_notification(app, enabled)
    assert replay.status_code == 200, replay.text
    assert browser.session_info().json()["email"] == second
    assert post_notification(app, disabled).status_code == 200
    assert browser.session_info().json()["email"] == second


def test_consent_revoked_ends_sessions_once(app):
    browser, identity, session = apple_user(app)
    body = capture_notification(app, "consent-revoked", identity.subject)
    response = post_notification(app, body)
    assert response.status_code == 200, response.text
    assert browser.session_info().status_code == 401
    assert browser.check().status_code == 401
    # The identity itself stays: signing in again reaches the same user, and a replay of the event does
    # not end that new session.
    again = app.browser()
    assert again.signed_in("apple", identity)["user_id"] == session["user_id"]
    replay = post_notification(app, body)
    assert replay.status_code == 200, replay.text
    assert again.session_info().status_code == 200


def test_account_delete_ends_sessions_and_revokes_at_apple_once(app):
    browser, identity, session = apple_user(app)
    second_device = app.browser("second device")
    assert second_device.signed_in("apple", identity)["user_id"] == session["user_id"]
    body = capture_notification(app, "account-delete", identity.subject)
    before = app.revocations()
    response = post_notification(app, body)
    assert response.status_code == 200, response.text
    assert browser.session_info().status_code == 401
    assert second_device.session_info().status_code == 401
    revoked = app.new_revocations(before, "apple")
    assert len(revoked) == 1, f"expected one Apple revocation, found {app.new_revocations(before)}"
    assert revoked[0].get("client_id") == APPLE_CLIENT_ID, revoked[0]
    # A replay is acknowledged and revokes nothing more.
    before = app.revocations()
    assert post_notification(app, body).status_code == 200
    assert app.new_revocations(before) == []
    # Apple says the account is gone: its sub no longer signs in.
    flow = app.browser().sign_in("apple", identity)
    expect_error(flow.result, "identity_disabled", (401, 403), context="sign-in after account-delete")


def test_tampered_signature_is_refused(app):
    _, identity, _ = apple_user(app)
    body = capture_notification(app, "consent-revoked", identity.subject)

    def tamper(payload: str) -> str:
        header, claims, signature = payload.split(".")
        return ".".join([header, claims, flip_character(signature, len(signature) // 2)])

    expect_error(post_notification(app, with_payload(body, tamper)), "invalid_notification", (400,),
                 context="flipped signature byte")
    # The untouched payload is still accepted: the refusal was about the flipped byte only.
    assert post_notification(app, body).status_code == 200


def test_tampered_claims_are_refused(app):
    browser, identity, _ = apple_user(app)
    body = capture_notification(app, "consent-revoked", identity.subject)

    def tamper(payload: str) -> str:
        header, claims, signature = payload.split(".")
        decoded = json.loads(harness.b64url_decode(claims))
        decoded["jti"] = decoded["jti"] + "0"
        return ".".join([header, harness.b64url_encode(json.dumps(decoded).encode()), signature])

    expect_error(post_notification(app, with_payload(body, tamper)), "invalid_notification", (400,),
                 context="claims changed under the signature")
    assert browser.session_info().status_code == 200, "a refused notification must change nothing"


@pytest.mark.parametrize("body", [
    b"", b"not json", b"[]", b'{"payload": 1}', b'{"payload": "a.b.c"}', b'{"payload": "' + b"A" * 70000 + b'"}',
    b'{"payload": "eyJhbGciOiJub25lIn0.eyJhdWQiOiJjb20uZXhhbXBsZS53ZWIifQ."}',
])
def test_malformed_notification_is_refused(app, body):
    expect_error(post_notification(app, body), "invalid_notification", (400,), context=f"body {body[:40]!r}")


def test_notification_for_another_audience_or_from_another_key_is_refused(app, servers):
    """A second sandbox signs with keys the app does not know: once for a client id the app does not
    have (wrong aud), once for the app's own client id (right aud, foreign key)."""
    other = servers.launch(providers=("apple",), store_kind="memory",
                           extra_providers="  apple-other:\n    type: apple\n    client_id: com.other.web\n"
                                           "    scopes: [name, email]\n")
    browser, identity, _ = apple_user(app)
    wrong_audience = capture_notification(other, "account-delete", identity.subject, client_id="com.other.web")
    claims = json.loads(harness.b64url_decode(json.loads(wrong_audience)["payload"].split(".")[1]))
    assert claims["aud"] == "com.other.web"
    expect_error(post_notification(app, wrong_audience), "invalid_notification", (400,), context="wrong aud")
    foreign_key = capture_notification(other, "account-delete", identity.subject)
    expect_error(post_notification(app, foreign_key), "invalid_notification", (400,), context="foreign key")
    assert browser.session_info().status_code == 200, "a refused notification must change nothing"
