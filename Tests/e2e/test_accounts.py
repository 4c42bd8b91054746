"""Accounts through `authflow serve --sandbox`: register, link, disconnect and delete, the revocations the
sandbox sees, and the refusal of cross-origin POSTs to the state-changing endpoints."""

from __future__ import annotations

import hashlib
import json
import secrets

import pytest

from authflow_harness import HTTP_TIMEOUT, PROVIDER_BLOCKS, Identity, direct, expect_error, expect_redirect


def check_revocation_shape(entry: dict) -> None:
    assert {"provider", "client_id", "token_type_hint", "token_sha256"} <= set(entry), entry
    assert isinstance(entry["token_sha256"], str) and len(entry["token_sha256"]) == 64, entry
    int(entry["token_sha256"], 16)


def test_register_refuses_an_identity_that_already_has_a_user(app):
    identity = Identity.fresh("google")
    first = app.browser("owner")
    owner = first.signed_in("google", identity)
    second = app.browser("registrant")
    flow = second.sign_in("google", identity, intent="register")
    expect_error(flow.result, "account_exists", (400, 403, 409), context="register of an existing identity")
    assert second.session_info().status_code == 401
    # The refused registration changed nothing: the identity still signs in to its user.
    assert app.browser().signed_in("google", identity)["user_id"] == owner["user_id"]


def test_signup_false_refuses_new_identities(servers):
    closed = servers.launch(server_extra="  signup: false", store_kind="memory")
    browser = closed.browser()
    flow = browser.sign_in("google", Identity.fresh("google"))
    expect_error(flow.result, "signup_disabled", (403,), context="first sign-in with signup: false")
    assert browser.session_info().status_code == 401
    expect_error(browser.begin("google", intent="register"), "signup_disabled", (403,),
                 context="register with signup: false")


def test_link_by_verified_email_links_only_verified_emails(servers):
    linking = servers.launch(server_extra="  link_by_verified_email: true", store_kind="memory")
    google = Identity.fresh("google", name="Owner")
    email = google.email
    owner = linking.browser().signed_in("google", google)
    # Apple vouches for the same address: the new identity joins the existing user.
    apple = Identity.fresh("apple")
    apple.email = email
    assert linking.browser().signed_in("apple", apple)["user_id"] == owner["user_id"]
    # Facebook never vouches for emails, and this Google account's address is unverified: neither may
    # take over the user by claiming its address.
    facebook = Identity.fresh("facebook")
    facebook.email = email
    assert linking.browser().signed_in("facebook", facebook)["user_id"] != owner["user_id"]
    unverified = Identity.fresh("google", email_verified=False)
    unverified.email = email
    session = linking.browser().signed_in("google", unverified)
    assert session["user_id"] != owner["user_id"]
    assert session["email"] is None and session["email_verified"] is False, session


def test_register_creates_a_user_for_a_new_identity(app):
    browser = app.browser()
    identity = Identity.fresh("facebook")
    flow = browser.sign_in("facebook", identity, intent="register")
    expect_redirect(flow.result, "/", context="register of a new identity")
    session = browser.session_info().json()
    assert session["subject"] == identity.subject and session["provider"] == "facebook"


def test_link_attaches_a_second_provider_to_the_signed_in_user(app):
    google = Identity.fresh("google")
    facebook = Identity.fresh("facebook")
    browser = app.browser()
    user_id = browser.signed_in("google", google)["user_id"]
    flow = browser.sign_in("facebook", facebook, intent="link", return_to="/settings")
    expect_redirect(flow.result, "/settings", context="link")
    assert browser.session_info().json()["user_id"] == user_id
    # Both identities now sign in, from fresh browsers, to the same user.
    via_facebook = app.browser("facebook only").signed_in("facebook", facebook)
    via_google = app.browser("google only").signed_in("google", google)
    assert via_facebook["user_id"] == user_id
    assert via_google["user_id"] == user_id
    assert via_facebook["subject"] == facebook.subject


def test_link_needs_a_session(app):
    response = app.browser().begin("facebook", intent="link")
    expect_error(response, "not_signed_in", (401, 403), context="link while signed out")


def test_link_does_not_steal_an_identity_of_another_user(app):
    victim_identity = Identity.fresh("x")
    victim = app.browser("victim").signed_in("x", victim_identity)
    attacker = app.browser("attacker")
    attacker_user = attacker.signed_in("google", Identity.fresh("google"))["user_id"]
    flow = attacker.sign_in("x", victim_identity, intent="link")
    assert flow.result.status_code in (400, 403, 409), flow.result.text
    assert {"error", "message"} <= set(flow.result.json())
    assert app.browser().signed_in("x", victim_identity)["user_id"] == victim["user_id"]
    assert attacker.session_info().json()["user_id"] == attacker_user


def test_disconnect_revokes_at_the_provider_and_unlinks(app):
    google, x = Identity.fresh("google"), Identity.fresh("x")
    browser = app.browser()
    user_id = browser.signed_in("google", google)["user_id"]
    expect_redirect(browser.sign_in("x", x, intent="link").result, "/", context="link x")
    before = app.revocations()
    response = browser.app_post("/auth/google/disconnect")
    assert response.status_code in (200, 204, 302, 303), response.text
    revoked = app.new_revocations(before, "google")
    assert revoked, f"no Google revocation after disconnect: {app.new_revocations(before)}"
    check_revocation_shape(revoked[0])
    # Google no longer leads to that user (a fresh sign-in makes a new one); X still does.
    assert app.browser().signed_in("google", google)["user_id"] != user_id
    assert app.browser().signed_in("x", x)["user_id"] == user_id


def test_disconnect_needs_a_session(app):
    browser = app.browser()
    expect_error(browser.app_post("/auth/google/disconnect"), "not_signed_in", (401, 403),
                 context="disconnect while signed out")


def test_account_delete_revokes_everything_and_removes_the_user(app):
    apple, google = Identity.fresh("apple", name="Grace Hopper"), Identity.fresh("google")
    browser = app.browser()
    user_id = browser.signed_in("apple", apple)["user_id"]
    expect_redirect(browser.sign_in("google", google, intent="link").result, "/", context="link google")
    other = app.browser("second device")
    assert other.signed_in("google", google)["user_id"] == user_id
    before = app.revocations()
    response = browser.app_post("/auth/account/delete")
    assert response.status_code == 204, response.text
    apple_revoked = app.new_revocations(before, "apple")
    google_revoked = app.new_revocations(before, "google")
    assert apple_revoked, f"Apple saw no revocation: {app.new_revocations(before)}"
    assert google_revoked, f"Google saw no revocation: {app.new_revocations(before)}"
    check_revocation_shape(apple_revoked[0])
    # Every session of the user ends, on every device.
    assert browser.session_info().status_code == 401
    assert other.session_info().status_code == 401
    assert other.check().status_code == 401
    # The identities are gone: signing in again makes a new user.
    again = app.browser().signed_in("apple", apple)
    assert again["user_id"] != user_id


def test_account_delete_needs_a_session(app):
    expect_error(app.browser().app_post("/auth/account/delete"), "not_signed_in", (401, 403),
                 context="delete while signed out")


CROSS_ORIGIN = {
    "evil origin, cross-site": {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    "evil origin only": {"Origin": "http://evil.example", "Sec-Fetch-Site": None, "Sec-Fetch-Mode": None},
    "cross-site fetch metadata only": {"Origin": None, "Sec-Fetch-Site": "cross-site"},
    "opaque origin": {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
    "the sandbox's origin": {"Origin": "SANDBOX", "Sec-Fetch-Site": "cross-site"},
}


@pytest.mark.parametrize("path", ["/auth/logout", "/auth/google/disconnect", "/auth/account/delete"])
@pytest.mark.parametrize("variant", sorted(CROSS_ORIGIN))
def test_cross_origin_post_is_refused(app, path, variant):
    browser = app.browser()
    google = Identity.fresh("google")
    session = browser.signed_in("google", google)
    headers = {k: (app.sandbox_url if v == "SANDBOX" else v) for k, v in CROSS_ORIGIN[variant].items()}
    # Cookies are sent as an old browser (or a SameSite=None cookie) would: the server's own origin
    # check must refuse the request, not the browser.
    before = app.revocations()
    response = browser.request("POST", app.app_url + path, initiator=None, data={}, headers=headers)
    expect_error(response, "cross_origin_request", (403,), context=f"{variant} POST {path}")
    # Nothing happened: still signed in, same user, nothing revoked.
    after = browser.session_info()
    assert after.status_code == 200 and after.json()["user_id"] == session["user_id"]
    assert app.browser().signed_in("google", google)["user_id"] == session["user_id"]
    assert app.new_revocations(before) == []


APPLE_WITH_NATIVE_APP = PROVIDER_BLOCKS["apple"] + "    native_clients: [com.example.ios]\n"


def native_link_body(server, subject: str) -> str:
    """A native `link` body for Apple carrying a fresh sandbox token of `subject`, as JSON text."""
    issued = direct.post(server.app_url + "/auth/apple/native/nonce", timeout=HTTP_TIMEOUT)
    assert issued.status_code == 200, issued.text
    nonce = issued.json()["nonce"]
    minted = direct.post(server.sandbox_url + "/_sandbox/apple/native", json={
        "identity": {"subject": subject, "email": f"{subject}@example.net"},
        "audience": "com.example.ios", "nonce": hashlib.sha256(nonce.encode()).hexdigest()}, timeout=HTTP_TIMEOUT)
    assert minted.status_code == 200, minted.text
    return json.dumps({"id_token": minted.json()["id_token"], "nonce": nonce, "intent": "link"})


@pytest.mark.parametrize("content_type,origin,site,expected", [
    ("text/plain", "http://evil.example", "cross-site", (403, "cross_origin_request")),
    ("application/x-www-form-urlencoded", "http://evil.example", "cross-site", (403, "cross_origin_request")),
    ("text/plain", "SIBLING", "same-site", (403, "cross_origin_request")),
    ("application/json", "SIBLING", "same-site", (403, "cross_origin_request")),
    ("text/plain", None, None, (415, "unsupported_media_type")),
])
def test_another_site_cannot_link_an_attackers_native_identity(servers, content_type, origin, site, expected):
    """The review's High finding, against the built binary: a page on another site (or a sibling subdomain) makes
    the victim's signed-in browser post the attacker's own Apple native token with `intent: link`."""
    server = servers.launch(providers=("google",), extra_providers=APPLE_WITH_NATIVE_APP, store_kind="memory")
    victim = server.browser("victim")
    session = victim.signed_in("google", Identity.fresh("google"))
    attacker = f"attacker-{secrets.token_hex(4)}"
    body = native_link_body(server, attacker)
    port = server.app_url.rsplit(":", 1)[1]
    headers = {"Content-Type": content_type, "Origin": None, "Sec-Fetch-Site": site, "Sec-Fetch-Mode": None}
    if origin is not None:
        headers["Origin"] = f"http://www.localhost:{port}" if origin == "SIBLING" else origin
    # The cookie is sent as a browser sends a SameSite=Lax cookie within the site (or as an old browser would).
    response = victim.request("POST", server.app_url + "/auth/apple/native", initiator=None, data=body,
                              headers=headers)
    expect_error(response, expected[1], (expected[0],), context=f"{content_type} from {origin}")
    # The attacker's identity joined nothing: its own native sign-in makes a user of its own.
    signed_in = direct.post(server.app_url + "/auth/apple/native", data=native_link_body(server, attacker)
                            .replace('"intent": "link"', '"intent": "login"'),
                            headers={"Content-Type": "application/json"}, timeout=HTTP_TIMEOUT)
    assert signed_in.status_code == 200, signed_in.text
    assert signed_in.json()["user_id"] != session["user_id"]


def test_the_users_own_page_links_a_native_identity(servers):
    server = servers.launch(providers=("google",), extra_providers=APPLE_WITH_NATIVE_APP, store_kind="memory")
    user = server.browser("user")
    session = user.signed_in("google", Identity.fresh("google"))
    subject = f"own-{secrets.token_hex(4)}"
    response = user.request("POST", server.app_url + "/auth/apple/native", initiator=server.app_url,
                            navigation=False, data=native_link_body(server, subject),
                            headers={"Content-Type": "application/json"})
    assert response.status_code == 200, response.text
    assert response.json()["user_id"] == session["user_id"]
