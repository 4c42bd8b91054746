"""`profile: fapi2` through `authflow serve --sandbox` with `sandbox.fapi2: true`: the sandbox's OpenID issuer in
its strict FAPI 2.0 mode (pushed requests with signed request objects, `private_key_jwt`, `iss`, PKCE S256, DPoP
with server nonces, PS256 id_tokens) signs a `type: oidc` provider in, and deleting the account revokes the
DPoP-bound token (the issuer refuses a revocation without a proof of the grant's key). The refresh with DPoP,
after a restart, is covered by Tests/AuthFlowSandboxTests (FAPIModeDPoPTests); `authflow serve` has no refresh
route to drive from here."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from authflow_harness import Identity, expect_redirect

BANK = """\
  bank:
    type: oidc
    profile: fapi2
    authorization_params: { access_type: offline, prompt: consent }
"""


def launch_fapi(servers):
    config, _ = servers.config(providers=[], extra_providers=BANK, store_kind="memory")
    text = config.read_text()
    assert "sandbox:\n  listen: 127.0.0.1:0\n" in text, text
    sandbox = "sandbox:\n  listen: 127.0.0.1:0\n"
    config.write_text(text.replace(sandbox, sandbox + "  fapi2: true\n"))
    return servers.start(config)


def test_fapi2_profile_signs_in_and_revokes_with_dpop(servers):
    app = launch_fapi(servers)
    browser = app.browser()
    identity = Identity.fresh("google")
    flow = browser.start("bank")
    # Pushed: the browser carries only the client id and the request_uri.
    query = dict(parse_qsl(urlsplit(flow.authorize_url).query))
    assert sorted(query) == ["client_id", "request_uri"], flow.authorize_url
    browser.consent(flow, identity)
    callback = browser.callback_from(flow)
    # RFC 9207: the issuer names itself in the response.
    assert "iss=" in callback.url, callback.url
    flow.callback = callback
    flow.result = browser.deliver(callback, flow=flow)
    expect_redirect(flow.result, "/", context="fapi2 callback")
    session = browser.session_info()
    assert session.status_code == 200, session.text

    before = app.revocations()
    response = browser.app_post("/auth/account/delete")
    assert response.status_code == 204, response.text
    revoked = app.new_revocations(before, "google")
    assert revoked, f"the issuer saw no revocation: {app.new_revocations(before)}"
    assert revoked[0]["token_kind"] == "refresh_token", revoked
    assert browser.session_info().status_code == 401
