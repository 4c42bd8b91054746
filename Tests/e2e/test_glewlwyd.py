"""Sign-ins against glewlwyd (Debian package `glewlwyd`, a C OpenID Provider; Tests/e2e/peers/glewlwyd_op.py
starts it on loopback with a throwaway SQLite database and provisions it through its admin REST API):
pushed authorization requests required, a client registered for `private_key_jwt` only, PKCE, `iss` in the
authorization response, refresh tokens and the revocation endpoint on.

`authflow serve` with `type: oidc`, `client_auth: private_key_jwt` and `par: required`, with and without
`dpop: true` (and with glewlwyd requiring DPoP server nonces); with DPoP, glewlwyd's own database shows the code
and refresh token bound to AuthFlow's key and the proofs it accepted, the refresh's included:

- signs in (the user signs in at glewlwyd through its login API, then the browser follows the authorization
  URL, which carries only `client_id` and `request_uri`); the callback's `iss` is glewlwyd's issuer;
- refreshes the stored tokens (`authflow tokens refresh`): glewlwyd's list of the user's refresh tokens shows
  the one AuthFlow holds used;
- revokes the refresh token when the account is deleted (`POST /auth/account/delete`): glewlwyd lists it as
  disabled afterwards;
- refuses a callback whose `iss` names another issuer (glewlwyd does not advertise RFC 9207's metadata, so
  one without `iss` cannot be refused).

Where glewlwyd 2.7.5 departs from the RFCs, docs/testing.md ("Third-party OpenID Providers") says how.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import pytest

import authflow_harness as harness

sys.path.insert(0, str(Path(__file__).parent / "peers"))
import glewlwyd_op  # noqa: E402


@pytest.fixture
def deployment(servers, tmp_path, request):
    """glewlwyd and `authflow serve` with one `type: oidc` provider `corp` on it. Indirect parameters:
    `dpop` (AuthFlow's `dpop:` key, `false` unless given) and `nonce` (glewlwyd requires DPoP server nonces)."""
    options = getattr(request, "param", {})
    reason = glewlwyd_op.available()
    if reason:
        harness.missing(reason)
    port = harness.free_port()
    op = glewlwyd_op.GlewlwydOP.start(tmp_path / "glewlwyd", dpop_nonce=options.get("nonce", False),
                                      redirect_uris=[f"http://localhost:{port}/auth/corp/callback"])
    try:
        block = (
            "  corp:\n    type: oidc\n"
            f"    issuer: {op.issuer}\n    client_id: {glewlwyd_op.CLIENT_ID}\n"
            f"    client_auth: private_key_jwt\n    private_key_file: {op.directory / 'client-key.pem'}\n"
            "    key_id: authflow-rp-key\n    par: required\n"
            + (f"    dpop: {options['dpop']}\n" if "dpop" in options else ""))
        config = harness.write_config(servers.directory(), port=port, providers=(), extra_providers=block)
        app = servers.start(config, sandbox=False)
        op.options["authflow_dpop"] = options.get("dpop", "false")
        yield op, app, config
    except BaseException:
        print(op.diagnostics())
        raise
    finally:
        op.stop()


def authorize(app, op):
    browser = app.browser()
    start = browser.begin("corp")
    assert start.status_code == 302, start.text[:300]
    authorize_url = start.headers["Location"]
    assert authorize_url.startswith(op.issuer + "/auth?"), authorize_url
    answer = op.login(browser.session, authorize_url)
    assert answer.status_code in (302, 303), f"{answer.status_code} {answer.text[:500]}\n{op.diagnostics()}"
    callback = urljoin(authorize_url, answer.headers["Location"])
    assert callback.startswith(browser.app + "/auth/corp/callback?"), callback
    return browser, authorize_url, callback


def test_the_client_assertion_glewlwyd_copies_into_the_redirect_is_spent_and_bound_to_par(deployment):
    """glewlwyd 2.7.5 copies the pushed request's parameters it does not consume into its redirect to the
    client, `client_assertion` included, so the assertion reaches the browser. AuthFlow's assertion there is
    addressed to the pushed authorization request endpoint only, lives 60 s, and glewlwyd has already spent
    its `jti`: presented again, it is refused."""
    op, app, _ = deployment
    _, _, callback = authorize(app, op)
    echoed = parse_qs(urlsplit(callback).query).get("client_assertion")
    assert echoed, "glewlwyd no longer copies the assertion: update docs/testing.md"
    claims = json.loads(harness.b64url_decode(echoed[0].split(".")[1]))
    par = op.discovery()["pushed_authorization_request_endpoint"]
    assert claims["aud"] == par and claims["exp"] - claims["iat"] <= 60, claims
    replay = harness.direct.post(par, timeout=harness.HTTP_TIMEOUT, data={
        "client_id": glewlwyd_op.CLIENT_ID, "response_type": "code", "scope": "openid",
        "redirect_uri": f"{app.browser().app}/auth/corp/callback",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": echoed[0]})
    assert replay.status_code == 401, replay.text[:300]


def refresh_tokens(op, browser) -> list[dict]:
    """The user's refresh tokens as glewlwyd lists them to the user (its profile API)."""
    response = browser.session.get(op.issuer + "/token/", timeout=harness.HTTP_TIMEOUT)
    assert response.status_code == 200, response.text[:300]
    return [t for t in response.json() if t.get("client_id") == glewlwyd_op.CLIENT_ID]


def dpop_bindings(op) -> tuple[list, list, int]:
    """What glewlwyd recorded: the DPoP key thumbprint of each code (pushed `dpop_jkt`) and each refresh token,
    and how many DPoP proofs it accepted."""
    codes = [row[0] for row in op.query("SELECT gpoc_dpop_jkt FROM gpo_code")]
    refresh = [row[0] for row in op.query("SELECT gpor_dpop_jkt FROM gpo_refresh_token")]
    return codes, refresh, op.query("SELECT count(*) FROM gpo_dpop")[0][0]


@pytest.mark.parametrize("deployment", [{"dpop": "false"}, {"dpop": "true"}, {"dpop": "true", "nonce": True}],
                         indirect=True, ids=["bearer", "dpop", "dpop-with-server-nonces"])
def test_sign_in_refresh_and_revocation_with_par_private_key_jwt_and_iss(deployment):
    op, app, config = deployment
    dpop = op.options["authflow_dpop"] == "true"
    browser, authorize_url, callback = authorize(app, op)
    query = parse_qs(urlsplit(authorize_url).query)
    assert sorted(query) == ["client_id", "request_uri"], query
    assert parse_qs(urlsplit(callback).query)["iss"] == [op.issuer]
    result = browser.get(callback, initiator=op.base)
    harness.expect_redirect(result, "/", context="glewlwyd callback")
    session = browser.session_info().json()
    assert session["provider"] == "corp" and session["subject"]
    subject = session["subject"]
    tokens = refresh_tokens(op, browser)
    assert len(tokens) == 1 and tokens[0]["enabled"] is True, tokens
    codes, bound, proofs = dpop_bindings(op)
    if dpop:
        # The code was bound to the key's thumbprint at the push, the refresh token to the same key, and the
        # code exchange carried a proof glewlwyd accepted.
        assert len(codes) == 1 and codes[0] and bound == codes, (codes, bound)
        assert proofs >= 1
        if op.options["dpop_nonce"]:  # glewlwyd issued a nonce (its `use_dpop_nonce` challenge), answered
            assert op.query("SELECT count(*) FROM gpo_dpop_client_nonce")[0][0] >= 1
    else:
        assert codes == [None] and bound == [None] and proofs == 0, (codes, bound, proofs)

    refreshed = subprocess.run(
        [harness.authflow_binary(), "tokens", "refresh", f"corp:{subject}", "--config", str(config)],
        capture_output=True, text=True, timeout=60)
    assert refreshed.returncode == 0, refreshed.stderr[-2000:] + op.diagnostics()
    assert refreshed.stdout.startswith(f"refreshed the tokens of corp:{subject}: access token valid until ")
    after = refresh_tokens(op, browser)
    assert after[0]["last_seen"] >= tokens[0]["last_seen"], after
    if dpop:
        # Another process (the CLI) proved possession of the same key: it is kept sealed with the tokens.
        _, bound_after, proofs_after = dpop_bindings(op)
        assert set(bound_after) == set(codes), bound_after
        assert proofs_after > proofs

    deleted = browser.app_post("/auth/account/delete")
    assert deleted.status_code == 204, deleted.text[:300]
    assert all(t["enabled"] is False for t in refresh_tokens(op, browser)), refresh_tokens(op, browser)


def replace_query(url: str, **changes) -> str:
    parts = urlsplit(url)
    fields = {k: v[0] for k, v in parse_qs(parts.query).items()}
    for key, value in changes.items():
        if value is None:
            fields.pop(key, None)
        else:
            fields[key] = value
    return parts._replace(query=urlencode(fields)).geturl()


def test_a_callback_naming_another_issuer_is_refused(deployment):
    op, app, _ = deployment
    browser, _, callback = authorize(app, op)
    result = browser.get(replace_query(callback, iss=op.issuer + "/other"), initiator=op.base)
    harness.expect_error(result, ("issuer_mismatch",), context="callback naming another issuer")
    assert browser.session_info().status_code == 401


def test_iss_is_sent_but_not_advertised_so_its_absence_is_not_refused(deployment):
    """glewlwyd 2.7.5 puts `iss` into its authorization responses (`oauth-as-iss-id`, written against a draft of
    RFC 9207) but its discovery document has no `authorization_response_iss_parameter_supported`. RFC 9207 §2.4
    lets a client require `iss` only from a server that advertises it, so AuthFlow compares the `iss` it gets
    and cannot refuse a response without one: this test pins that down."""
    op, app, _ = deployment
    assert "authorization_response_iss_parameter_supported" not in op.discovery()
    browser, _, callback = authorize(app, op)
    result = browser.get(replace_query(callback, iss=None), initiator=op.base)
    harness.expect_redirect(result, "/", context="glewlwyd callback without iss")
