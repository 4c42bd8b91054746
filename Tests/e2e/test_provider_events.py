"""Provider events delivered by the sandbox's admin senders to `authflow serve --sandbox`, black-box:
Facebook's data deletion callback removes the Facebook identity (a new sign-in makes a new user) and its
status page answers; Google RISC `sessions-revoked` ends the Google session; `account-disabled`
(`hijacking`) refuses Google sign-in until `account-enabled`."""

from __future__ import annotations

import authflow_harness as harness
from authflow_harness import HTTP_TIMEOUT, Identity, direct

FACEBOOK_CLIENT_ID = "1234567890"
GOOGLE_CLIENT_ID = "123.apps.googleusercontent.com"


def send(app, path: str, fields: dict) -> dict:
    response = direct.post(app.sandbox_url + path, data=fields, timeout=HTTP_TIMEOUT)
    assert response.status_code == 200, f"sandbox {path}: {response.status_code} {response.text[:300]}"
    return response.json()


def risc(app, kind: str, subject: str, **extra) -> dict:
    return send(app, "/_sandbox/google/risc", {
        "type": kind, "sub": subject, "client_id": GOOGLE_CLIENT_ID, "to": app.app_url + "/auth/google/events",
        **extra})


def test_facebook_data_deletion_removes_the_identity_and_a_new_sign_in_makes_a_new_user(app):
    browser = app.browser()
    identity = Identity.fresh("facebook")
    first = browser.signed_in("facebook", identity)
    answer = send(app, "/_sandbox/facebook/data-deletion", {
        "user_id": identity.subject, "client_id": FACEBOOK_CLIENT_ID,
        "to": app.app_url + "/auth/facebook/data-deletion"})
    assert answer["status"] == 200, answer
    body = answer["response"]
    code = body["confirmation_code"]
    assert len(code) == 32 and body["url"] == f"{app.app_url}/auth/facebook/data-deletion/{code}", body
    assert browser.session_info().status_code == 401

    status = direct.get(body["url"], headers={"Accept": "application/json"}, timeout=HTTP_TIMEOUT)
    assert status.status_code == 200, status.text
    assert status.json()["status"] == "completed"
    assert direct.get(app.app_url + "/auth/facebook/data-deletion/" + "0" * 32,
                      timeout=HTTP_TIMEOUT).status_code == 404

    again = app.browser().signed_in("facebook", identity)
    assert again["user_id"] != first["user_id"], (first, again)


def test_forged_facebook_callback_is_refused(app):
    browser = app.browser()
    identity = Identity.fresh("facebook")
    browser.signed_in("facebook", identity)
    forged = direct.post(app.app_url + "/auth/facebook/data-deletion",
                         data={"signed_request": "c2lnbmF0dXJl.eyJhbGdvcml0aG0iOiJITUFDLVNIQTI1NiJ9"},
                         timeout=HTTP_TIMEOUT)
    assert forged.status_code == 400, forged.text
    assert forged.json()["error"] == "invalid_signed_request"
    assert browser.session_info().status_code == 200


def test_google_sessions_revoked_ends_the_google_session(app):
    browser = app.browser()
    identity = Identity.fresh("google")
    browser.signed_in("google", identity)
    answer = risc(app, "sessions-revoked", identity.subject)
    assert answer["status"] == 202, answer
    assert browser.session_info().status_code == 401
    assert browser.check().status_code == 401


def test_google_hijacking_refuses_sign_in_until_account_enabled(app):
    browser = app.browser()
    identity = Identity.fresh("google")
    browser.signed_in("google", identity)
    assert risc(app, "account-disabled", identity.subject, reason="hijacking")["status"] == 202
    assert browser.session_info().status_code == 401

    refused = app.browser().sign_in("google", identity).result
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"] == "identity_disabled"

    assert risc(app, "account-enabled", identity.subject)["status"] == 202
    app.browser().signed_in("google", identity)


def test_forged_security_event_is_refused(app):
    response = direct.post(app.app_url + "/auth/google/events", data=b"eyJhbGciOiJub25lIn0.e30.",
                           headers={"Content-Type": "application/secevent+jwt"}, timeout=HTTP_TIMEOUT)
    assert response.status_code == 400, response.text
    assert response.json()["err"], response.text
