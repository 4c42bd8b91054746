"""Sign-in through `authflow serve --sandbox` at the HTTP level, one emulated browser per
`Browser`: every provider signs in, and every way of forging, replaying or misdirecting a callback is
refused with the server's JSON error."""

from __future__ import annotations

import dataclasses
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest

import authflow_harness as harness
from authflow_harness import Callback, Identity, PROVIDERS, SESSION_KEYS, expect_error, expect_redirect

#: What `/auth/session` shows per provider for a typed identity: Facebook never vouches for an email
#: and X only with the users.email scope (not configured), so their email stays null (docs/server.md,
#: `GET /auth/session`: `email` only when the provider verified it).
VERIFIED_EMAIL = {"apple": True, "google": True, "facebook": False, "x": False}


def check_session(session: dict, provider: str, identity: Identity) -> None:
    assert set(session) == SESSION_KEYS, f"/auth/session keys: {sorted(session)}"
    assert session["provider"] == provider
    assert session["subject"] == identity.subject
    assert isinstance(session["user_id"], str) and session["user_id"], session
    assert session["expires_at"] is not None, session
    if VERIFIED_EMAIL[provider]:
        assert session["email"] == identity.email, session
        assert session["email_verified"] is True, session
    else:
        assert session["email"] is None, session
        assert session["email_verified"] in (False, None), session
    assert session["name"] == identity.name, session


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_provider_signs_in_and_session_shows_identity(app, provider):
    browser = app.browser()
    identity = Identity.fresh(provider, name="Ada Lovelace")
    assert browser.session_info().status_code == 401
    flow = browser.sign_in(provider, identity, return_to="/account?tab=profile")
    expect_redirect(flow.result, "/account?tab=profile", context=f"{provider} callback")
    if provider == "apple":
        # form_post: the provider's page POSTs to the app from another site.
        assert flow.callback.method == "POST"
        assert harness.origin_of(flow.provider_answer.url) == app.sandbox_url
        assert {"code", "state", "user"} <= {k for k, _ in flow.callback.fields}
    else:
        assert flow.callback.method == "GET"
    cookies = [c for c in harness.set_cookie_headers(flow.result) if "max-age=0" not in c.lower()]
    assert cookies, "the callback set no cookie"
    for header in cookies:
        assert "httponly" in header.lower(), f"cookie without HttpOnly: {header}"
    response = browser.session_info()
    assert response.status_code == 200, response.text
    check_session(response.json(), provider, identity)


def test_signed_out_session_and_check_are_401(app):
    browser = app.browser()
    expect_error(browser.session_info(), "not_signed_in", (401,), context="/auth/session signed out")
    assert browser.check().status_code == 401


def test_auth_check_answers_202_with_user_headers(app):
    browser = app.browser()
    identity = Identity.fresh("google")
    session = browser.signed_in("google", identity)
    response = browser.check()
    assert response.status_code == 202, response.text
    assert response.headers.get("X-Auth-User") == session["user_id"]
    assert response.headers.get("X-Auth-Email") == identity.email
    # A forged cookie value is not a session.
    forged = app.browser("forger")
    for cookie in browser.session.cookies:
        copy = harness.copy_cookie(cookie, value=cookie.value[:-2] + ("AA" if not cookie.value.endswith("AA") else "BB"))
        forged.session.cookies.set_cookie(copy)
    assert forged.check().status_code == 401
    assert forged.session_info().status_code == 401


def test_auth_check_sends_no_unverified_email(app):
    browser = app.browser()
    browser.signed_in("facebook", Identity.fresh("facebook"))  # Facebook does not vouch for emails
    response = browser.check()
    assert response.status_code == 202
    assert response.headers.get("X-Auth-User")
    assert not response.headers.get("X-Auth-Email"), response.headers


def test_logout_ends_the_session_server_side(app):
    browser = app.browser()
    browser.signed_in("x", Identity.fresh("x"))
    stolen = app.browser("copy")
    for cookie in browser.session.cookies:
        stolen.session.cookies.set_cookie(cookie)
    assert stolen.session_info().status_code == 200, "a copied cookie should work before logout"
    response = browser.logout()
    assert response.status_code in (204, 302, 303), response.text
    assert browser.session_info().status_code == 401
    # The old cookie, replayed by anyone, no longer works.
    assert stolen.session_info().status_code == 401
    assert stolen.check().status_code == 401


def test_demo_page_sign_out_form_works_as_a_browser_submits_it(app):
    """The demo page's #signout form, submitted with the `Origin` Chromium sends for it (which depends on
    the page's referrer policy), signs out."""
    browser = app.browser()
    browser.signed_in("google", Identity.fresh("google"))
    page = browser.get("/", initiator=app.app_url)
    assert page.status_code == 200, page.text
    forms = [form for form in harness.parse_forms(page.text, page.url)
             if any(button.get("id") == "signout" for button in form.buttons)]
    assert len(forms) == 1, "no #signout form on the signed-in demo page"
    origin = harness.origin_header(page.url, harness.referrer_policy(page), forms[0].action)
    response = browser.submit(page, forms[0])
    expect_redirect(response, "/", context=f"sign-out form (Origin: {origin})")
    assert browser.session_info().status_code == 401


def test_logout_from_a_no_referrer_page_of_the_app_works(app):
    """An app page served with `Referrer-Policy: no-referrer` makes the browser send `Origin: null` with its
    same-origin POSTs; `Sec-Fetch-Site: same-origin` still shows where the request came from."""
    browser = app.browser()
    browser.signed_in("x", Identity.fresh("x"))
    response = browser.post("/auth/logout", initiator=app.app_url, data={}, headers={"Origin": "null"})
    assert response.status_code == 204, response.text
    assert browser.session_info().status_code == 401


def test_logout_with_return_to_redirects_there(app):
    browser = app.browser()
    browser.signed_in("google", Identity.fresh("google"))
    response = browser.app_post("/auth/logout?return_to=/")
    expect_redirect(response, "/", context="logout with return_to")
    assert browser.session_info().status_code == 401


@pytest.mark.parametrize("provider", PROVIDERS)
def test_replayed_callback_is_refused(app, provider):
    browser = app.browser()
    identity = Identity.fresh(provider)
    flow = browser.start(provider)
    browser.consent(flow, identity)
    callback = browser.callback_from(flow)
    kept = [c for c in browser.session.cookies if c.name.startswith("authflow_flow_")]
    assert len(kept) == 1, f"expected one flow cookie, found {[c.name for c in kept]}"
    expect_redirect(browser.deliver(callback, flow=flow), "/", context="first delivery")
    # The sign-in cleared its flow cookie, so a plain replay no longer belongs to this browser; with the
    # cookie kept aside and sent again, the state is found spent.
    assert not any(c.name.startswith("authflow_flow_") for c in browser.session.cookies)
    expect_error(browser.deliver(callback), "browser_binding_mismatch", context=f"{provider} plain replay")
    browser.session.cookies.set(kept[0].name, kept[0].value, domain=kept[0].domain, path="/")
    replay = browser.deliver(callback)
    expect_error(replay, "invalid_state", context=f"{provider} replayed callback")
    # The refusal does not touch the session the first delivery created.
    assert browser.session_info().json()["subject"] == identity.subject


@pytest.mark.parametrize("provider", PROVIDERS)
def test_callback_from_another_browser_is_refused(app, provider):
    victim = app.browser("victim")
    flow = victim.start(provider)
    victim.consent(flow, Identity.fresh(provider))
    callback = victim.callback_from(flow)
    # The attacker's browser never began this sign-in, so it holds no binding cookie for it.
    attacker = app.browser("attacker")
    response = attacker.deliver(callback)
    expect_error(response, "browser_binding_mismatch", context=f"{provider} callback in another browser")
    assert attacker.session_info().status_code == 401


@pytest.mark.parametrize("provider", PROVIDERS)
def test_login_csrf_callback_of_the_attacker_in_the_victims_browser_is_refused(app, provider):
    """The attacker completes consent with their own account and makes the victim's browser deliver the
    callback; the victim's browser holds a flow cookie of its own, which does not match."""
    attacker = app.browser("attacker")
    attack = attacker.start(provider)
    attacker.consent(attack, Identity.fresh(provider, name="Mallory"))
    callback = attacker.callback_from(attack)
    victim = app.browser("victim")
    victim.start(provider)  # the victim has begun a sign-in: it has a flow cookie
    response = victim.deliver(callback)
    expect_error(response, "browser_binding_mismatch", context=f"{provider} login CSRF")
    assert victim.session_info().status_code == 401


@pytest.mark.parametrize("provider", ["apple", "google"])
def test_callback_naming_another_issuer_is_refused(app, provider):
    """RFC 9207 mix-up defence: an `iss` response parameter naming another issuer than the provider's is
    refused before the code is used (the GET callback of Google and Apple's form POST alike)."""
    browser = app.browser()
    identity = Identity.fresh(provider)
    flow = browser.start(provider)
    browser.consent(flow, identity)
    callback = browser.callback_from(flow)
    if callback.method == "GET":
        forged = dataclasses.replace(callback, url=callback.url + "&iss=" + quote("https://attacker.example", safe=""))
    else:
        forged = dataclasses.replace(callback, fields=list(callback.fields or []) + [("iss", "https://attacker.example")])
    response = browser.deliver(forged)
    expect_error(response, "issuer_mismatch", (403,), context=f"{provider} callback naming another issuer")
    assert browser.session_info().status_code == 401


def test_session_id_is_replaced_at_sign_in(app):
    """A session cookie planted before sign-in (session fixation) is not the one the sign-in creates."""
    probe = app.browser("probe")
    before = {cookie.name for cookie in probe.session.cookies}
    flow = probe.sign_in("google", Identity.fresh("google"))
    expect_redirect(flow.result, "/", context="probe sign-in")
    # (The callback also clears its flow cookie, with Max-Age=0: not a cookie it sets.)
    names = {header.split("=", 1)[0].strip() for header in harness.set_cookie_headers(flow.result)
             if "max-age=0" not in header.lower()} - before
    assert names, "the callback set no session cookie"
    for header in harness.set_cookie_headers(flow.result):
        lowered = header.lower()
        assert "httponly" in lowered and ("samesite=lax" in lowered or "samesite=strict" in lowered), header
        assert "path=/" in lowered, header
    victim = app.browser("victim")
    planted = "planted-by-the-attacker-0123456789abcdefghijklmnopqrstuv"
    planted_names = set()
    for cookie in probe.session.cookies:
        if cookie.name in names:  # same name, domain and path as the real one: the browser keeps one
            victim.session.cookies.set_cookie(harness.copy_cookie(cookie, value=planted))
            planted_names.add(cookie.name)
    assert planted_names == names, f"planted {planted_names}, the sign-in set {names}"
    assert any(c.value == planted for c in victim.session.cookies), "the planted cookie is not in the victim's jar"
    assert victim.session_info().status_code == 401
    victim.signed_in("google", Identity.fresh("google"))
    values = {cookie.value for cookie in victim.session.cookies if cookie.name in names}
    assert values, "the victim holds no session cookie after signing in"
    assert planted not in values, "the planted session id was kept"
    assert victim.session_info().status_code == 200


@pytest.mark.parametrize(("issued_for", "delivered_to"), [("google", "facebook"), ("apple", "x"), ("x", "google")])
def test_state_issued_for_another_provider_is_refused(app, issued_for, delivered_to):
    browser = app.browser()
    flow = browser.start(issued_for)
    browser.consent(flow, Identity.fresh(issued_for))
    callback = browser.callback_from(flow)
    parameters = callback.fields if callback.method == "POST" else \
        [(k, v[0]) for k, v in parse_qs(urlsplit(callback.url).query).items()]
    target = f"{app.app_url}/auth/{delivered_to}/callback?" + urlencode(parameters)
    response = browser.deliver(Callback("GET", target))
    # The flow cookie is sealed with the provider as associated data: at another provider's callback it
    # does not open, so the callback has no flow of this browser.
    expect_error(response, "browser_binding_mismatch", (403,), context=f"{issued_for} state at {delivered_to}")
    assert browser.session_info().status_code == 401


def test_unknown_or_missing_state_is_refused(app):
    browser = app.browser()
    bogus = browser.deliver(Callback("GET", f"{app.app_url}/auth/google/callback?code=4/0abc&state=not-a-state"))
    # No flow cookie belongs to a made-up state.
    expect_error(bogus, "browser_binding_mismatch", (403,), context="unknown state")
    missing = browser.deliver(Callback("GET", f"{app.app_url}/auth/google/callback?code=4/0abc"))
    expect_error(missing, "invalid_state", context="no state")
    apple = browser.deliver(Callback("POST", f"{app.app_url}/auth/apple/callback",
                                     [("code", "c.abc"), ("state", "not-a-state")]))
    expect_error(apple, "browser_binding_mismatch", (403,), context="unknown state in Apple's form_post")
    assert browser.session_info().status_code == 401


def test_cancelled_consent_is_a_provider_error(app):
    browser = app.browser()
    flow = browser.start("google")
    browser.consent(flow, None, decision="cancel")
    response = browser.deliver(browser.callback_from(flow))
    expect_error(response, "provider_error", context="cancelled consent")
    assert browser.session_info().status_code == 401


def test_error_is_html_when_the_browser_prefers_it(app):
    browser = app.browser()
    response = browser.get("/auth/google/callback?code=x&state=unknown", initiator=app.sandbox_url,
                           headers={"Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8"})
    assert response.status_code == 403, response.text
    assert response.headers.get("Content-Type", "").startswith("text/html"), response.headers
    assert "browser_binding_mismatch" in response.text
    assert "<script" not in response.text.lower()


@pytest.mark.parametrize("return_to", [
    "//evil.example", "/\\evil.example", "https://evil.example", "/%2F%2Fevil.example", "javascript:alert(1)",
    "http://localhost.evil.example/", "/\t/evil.example", "\\\\evil.example", "%2F%2Fevil.example",
    "/%5Cevil.example",
])
def test_open_redirect_return_to_is_refused(app, return_to):
    browser = app.browser()
    response = browser.begin("google", return_to=return_to)
    expect_error(response, "invalid_return_to", context=f"return_to={return_to!r}")
    assert "Location" not in response.headers


@pytest.mark.parametrize("path", ["/auth/logout", "/auth/google/disconnect", "/auth/account/delete"])
def test_state_changing_posts_refuse_an_off_site_return_to(app, path):
    browser = app.browser()
    browser.signed_in("google", Identity.fresh("google"))
    response = browser.app_post(path + "?" + urlencode({"return_to": "//evil.example/"}))
    expect_error(response, "invalid_return_to", (400,), context=f"POST {path} with return_to=//evil.example/")
    assert "Location" not in response.headers


def test_unverified_google_email_is_not_shown(app):
    browser = app.browser()
    identity = Identity.fresh("google", email_verified=False)
    session = browser.signed_in("google", identity)
    assert session["email"] is None and session["email_verified"] is False, session
    assert not browser.check().headers.get("X-Auth-Email")


def test_unknown_provider_is_refused(app):
    response = app.browser().begin("myspace")
    expect_error(response, "unknown_provider", (400, 404), context="unknown provider")


def test_healthz_answers(app):
    response = harness.direct.get(app.app_url + "/healthz", timeout=harness.HTTP_TIMEOUT)
    assert response.status_code == 200
