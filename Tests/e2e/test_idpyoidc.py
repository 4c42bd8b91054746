"""Sign-ins against idpyoidc (PyPI `idpyoidc`, the IdentityPython / OpenID Foundation community's OpenID
Provider library), run as its own process by Tests/e2e/peers/idpyoidc_op.py: pushed authorization requests
required, `private_key_jwt` the only client authentication (at PAR, token and revocation), PKCE S256, `iss`
in every authorization response (RFC 9207) and DPoP offered.

`authflow serve` with `type: oidc`, `client_auth: private_key_jwt` and `par: required`:

- signs in: the browser only ever carries `client_id` and the `request_uri`; the callback's `iss` is the
  issuer; the pushed request was authenticated with a fresh assertion (`iss` = `sub` = the client);
- refreshes the stored tokens at the provider (`authflow tokens refresh`, the server's own refresher);
- revokes them at the provider when the account is deleted (`POST /auth/account/delete`);
- all of it again with `dpop: true` against the OP requiring DPoP: the pushed `dpop_jkt`, a proof at the code
  exchange, userinfo, refresh (from another process) and revocation, `token_type: DPoP` and access tokens
  bound to the key (`cnf.jkt`), as the OP's request log shows;
- refuses a callback whose `iss` is missing or names another issuer, and a `request_uri` the provider has
  forgotten (expired) comes back as the provider's error, never a session;
- answers a push the provider refuses (an assertion signed by an unregistered key) with
  `pushed_authorization_error`, never a redirect.

Where idpyoidc 5.0 departs from the RFCs, docs/testing.md ("Third-party OpenID Providers") says how.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import pytest
from jwcrypto import jwk

import authflow_harness as harness

PEERS = Path(__file__).parent / "peers"
CLIENT_ID = "authflow-rp"
SUBJECT = "ada"


class IdpyOIDC:
    def __init__(self, process: subprocess.Popen, issuer: str, log_path: Path, key_file: Path):
        self.process = process
        self.issuer = issuer
        self.log_path = log_path
        self.key_file = key_file

    def requests_seen(self) -> list[dict]:
        return harness.direct.get(self.issuer + "/_test/log", timeout=harness.HTTP_TIMEOUT).json()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_op(directory: Path, redirect_uri: str, dpop: bool = False) -> IdpyOIDC:
    python = os.environ.get("AUTHFLOW_PYTHON", sys.executable)
    check = subprocess.run([python, "-c", "import idpyoidc.server"], capture_output=True, text=True)
    if check.returncode != 0:
        harness.missing("idpyoidc is not installed (pip install -r Tests/e2e/requirements.txt)")
    key = jwk.JWK.generate(kty="EC", crv="P-256", kid="authflow-rp-key", alg="ES256", use="sig")
    key_file = directory / "client-key.pem"
    key_file.write_bytes(key.export_to_pem(private_key=True, password=None))
    jwks_file = directory / "client-jwks.json"
    jwks_file.write_text(json.dumps({"keys": [json.loads(key.export_public())]}))
    port = harness.free_port()
    log_path = directory / "idpyoidc.log"
    log = open(log_path, "w+")
    process = subprocess.Popen(
        [python, "-W", "ignore", str(PEERS / "idpyoidc_op.py"), "--port", str(port), "--client-id", CLIENT_ID,
         "--client-jwks", str(jwks_file), "--redirect-uri", redirect_uri, "--user", SUBJECT]
        + (["--dpop"] if dpop else []),
        stdout=log, stderr=subprocess.STDOUT, cwd=directory)
    issuer = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if harness.direct.get(issuer + "/.well-known/openid-configuration", timeout=2).status_code == 200:
                break
        except Exception:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            log.seek(0)
            raise AssertionError(f"the idpyoidc OP did not start: {log.read()[-3000:]}")
        time.sleep(0.2)
    log.close()
    return IdpyOIDC(process, issuer, log_path, key_file)


def provider_block(op: IdpyOIDC, key_file: Path, dpop: str | None = None) -> str:
    return (
        "  corp:\n    type: oidc\n"
        f"    issuer: {op.issuer}\n    client_id: {CLIENT_ID}\n"
        f"    client_auth: private_key_jwt\n    private_key_file: {key_file}\n    key_id: authflow-rp-key\n"
        "    par: required\n    scopes: [openid, email, profile, offline_access]\n"
        # OpenID Connect Core §11: a refresh token (offline_access) is asked for with prompt=consent.
        "    authorization_params: {prompt: consent}\n"
        + (f"    dpop: {dpop}\n" if dpop else ""))


@pytest.fixture
def deployment(servers, tmp_path, request):
    """The OP and `authflow serve` with one `type: oidc` provider `corp` on it; the indirect parameter
    `{"dpop": True}` has the OP require DPoP and AuthFlow set `dpop: true`."""
    dpop = getattr(request, "param", {}).get("dpop", False)
    port = harness.free_port()
    op = start_op(tmp_path, f"http://localhost:{port}/auth/corp/callback", dpop=dpop)
    op.dpop = dpop
    try:
        block = provider_block(op, op.key_file, "true" if dpop else None)
        config = harness.write_config(servers.directory(), port=port, providers=(), extra_providers=block)
        app = servers.start(config, sandbox=False)
        yield op, app, config
    finally:
        op.stop()


def test_a_push_the_provider_refuses_is_a_typed_error_not_a_redirect(servers, tmp_path):
    """The client assertion signed with a key the provider does not know: idpyoidc refuses the push, and the
    sign-in start answers `pushed_authorization_error` (502) instead of sending the browser anywhere."""
    port = harness.free_port()
    op = start_op(tmp_path, f"http://localhost:{port}/auth/corp/callback")
    try:
        stranger = jwk.JWK.generate(kty="EC", crv="P-256", kid="authflow-rp-key", alg="ES256", use="sig")
        key_file = tmp_path / "unregistered-key.pem"
        key_file.write_bytes(stranger.export_to_pem(private_key=True, password=None))
        config = harness.write_config(servers.directory(), port=port, providers=(),
                                      extra_providers=provider_block(op, key_file))
        app = servers.start(config, sandbox=False)
        start = app.browser().begin("corp")
        assert start.status_code == 502, start.text[:300]
        assert start.json()["error"] == "pushed_authorization_error"
        assert "invalid_client" in start.json()["message"]
        assert "Location" not in start.headers
        assert [r["status"] for r in op.requests_seen() if r["endpoint"] == "pushed_authorization"] == [401]
    finally:
        op.stop()


def authorize(app, op: IdpyOIDC):
    """The sign-in start and the provider's answer (idpyoidc authenticates the user without a form)."""
    browser = app.browser()
    start = browser.begin("corp")
    assert start.status_code == 302, start.text[:300]
    authorize_url = start.headers["Location"]
    assert authorize_url.startswith(op.issuer + "/authorization?"), authorize_url
    answer = browser.get(authorize_url, initiator=browser.app)
    assert answer.status_code in (302, 303), answer.text[:500]
    callback = urljoin(authorize_url, answer.headers["Location"])
    assert callback.startswith(browser.app + "/auth/corp/callback?"), callback
    return browser, authorize_url, callback


@pytest.mark.parametrize("deployment", [{}, {"dpop": True}], indirect=True, ids=["bearer", "dpop"])
def test_sign_in_refresh_and_revocation_with_par_private_key_jwt_and_iss(deployment):
    op, app, config = deployment
    browser, authorize_url, callback = authorize(app, op)
    # PAR: the browser carries the client id and the request_uri, nothing of the request itself.
    query = parse_qs(urlsplit(authorize_url).query)
    assert sorted(query) == ["client_id", "request_uri"], query
    assert query["client_id"] == [CLIENT_ID]
    # RFC 9207: the provider names itself in the response.
    assert parse_qs(urlsplit(callback).query)["iss"] == [op.issuer]
    result = browser.get(callback, initiator=op.issuer)
    harness.expect_redirect(result, "/", context="idpyoidc callback")
    session = browser.session_info().json()
    assert session["provider"] == "corp" and session["subject"]  # idpyoidc's pairwise subject for the user
    assert session["email"] == "ada@example.org"
    subject = session["subject"]

    seen = op.requests_seen()
    pushed = [r for r in seen if r["endpoint"] == "pushed_authorization"]
    assert [r["status"] for r in pushed] == [201], seen
    assertion = pushed[0]["assertion"]
    assert assertion["iss"] == assertion["sub"] == CLIENT_ID
    codes = [r for r in seen if r["endpoint"] == "token" and r["grant_type"] == "authorization_code"]
    assert [r["status"] for r in codes] == [200], seen
    assert codes[0]["assertion"]["jti"] != assertion["jti"]
    userinfo = [r for r in seen if r["endpoint"] == "userinfo"]
    if op.dpop:
        # The key's thumbprint was pushed, the code exchange proved possession of it, and the access token
        # idpyoidc issued is bound to it (`cnf.jkt`); userinfo took `Authorization: DPoP` with a proof whose
        # `ath` the corrected check verified.
        jkt = pushed[0]["dpop_jkt"]
        assert jkt, pushed
        assert codes[0]["dpop"] and codes[0]["token_type"] == "DPoP", codes
        assert codes[0]["cnf"] == {"jkt": jkt}, codes
        assert [(r["status"], r["authorization_scheme"], r["dpop"]) for r in userinfo] == [(200, "DPoP", True)]
    else:
        assert pushed[0]["dpop_jkt"] is None and not codes[0]["dpop"] and codes[0]["token_type"] == "Bearer"

    # The refresh: the stored refresh token redeemed at the token endpoint, authenticated the same way.
    refreshed = subprocess.run(
        [harness.authflow_binary(), "tokens", "refresh", f"corp:{subject}", "--config", str(config)],
        capture_output=True, text=True, timeout=60)
    assert refreshed.returncode == 0, refreshed.stderr[-2000:]
    assert refreshed.stdout.startswith(f"refreshed the tokens of corp:{subject}: access token valid until ")
    refreshes = [r for r in op.requests_seen() if r["grant_type"] == "refresh_token"]
    assert [r["status"] for r in refreshes] == [200], op.requests_seen()
    assert refreshes[0]["assertion"]["iss"] == CLIENT_ID
    if op.dpop:
        # Another process (the CLI) proved possession of the same key: it is kept sealed with the tokens.
        assert refreshes[0]["dpop"] and refreshes[0]["token_type"] == "DPoP", refreshes
        assert refreshes[0]["cnf"] == {"jkt": jkt}, refreshes

    # The revocation: deleting the account revokes the stored token at the provider.
    deleted = browser.app_post("/auth/account/delete")
    assert deleted.status_code == 204, deleted.text[:300]
    revocations = [r for r in op.requests_seen() if r["endpoint"] == "token_revocation"]
    assert [r["status"] for r in revocations] == [200], op.requests_seen()
    assert revocations[0]["assertion"]["sub"] == CLIENT_ID
    assert revocations[0]["dpop"] == op.dpop  # a proof at revocation too (idpyoidc does not check it there)
    assert browser.session_info().status_code == 401


def replace_query(url: str, **changes) -> str:
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qs(parts.query).items()]
    fields = {k: v[0] for k, v in query}
    for key, value in changes.items():
        if value is None:
            fields.pop(key, None)
        else:
            fields[key] = value
    return parts._replace(query=urlencode(fields)).geturl()


@pytest.mark.parametrize("iss", [None, "http://127.0.0.1:1", "OTHER"])
def test_a_callback_without_iss_or_with_another_issuer_is_refused(deployment, iss):
    op, app, _ = deployment
    browser, _, callback = authorize(app, op)
    altered = replace_query(callback, iss=(op.issuer + "/" if iss == "OTHER" else iss))
    result = browser.get(altered, initiator=op.issuer)
    harness.expect_error(result, ("issuer_mismatch", "missing_issuer", "invalid_callback"),
                         context=f"callback with iss={iss!r}")
    assert browser.session_info().status_code == 401
    # Nothing was redeemed: the check comes before the code exchange.
    assert not [r for r in op.requests_seen() if r["endpoint"] == "token"]


def test_an_expired_request_uri_is_the_providers_error_not_a_session(deployment):
    op, app, _ = deployment
    browser = app.browser()
    start = browser.begin("corp")
    assert start.status_code == 302, start.text[:300]
    assert harness.direct.post(op.issuer + "/_test/expire-par", timeout=harness.HTTP_TIMEOUT).status_code == 204
    answer = browser.get(start.headers["Location"], initiator=browser.app)
    # idpyoidc answers an unknown request_uri itself (an error page or an error redirect to the client).
    if answer.status_code in (302, 303):
        callback = urljoin(start.headers["Location"], answer.headers["Location"])
        assert "code=" not in urlsplit(callback).query
        result = browser.get(callback, initiator=op.issuer)
        assert result.status_code in (400, 401, 403), result.text[:300]
    else:
        assert answer.status_code >= 400, answer.text[:300]
    assert browser.session_info().status_code == 401
