"""Sign-ins against an OpenID Provider this project did not write: `oidc-provider-mock` (PyPI; authlib's
authorization server), run as its own process. Its discovery document lists neither
`token_endpoint_auth_methods_supported` nor `code_challenge_methods_supported`, the case where a client must
be told how to authenticate and may force PKCE.

- a client registered (dynamic registration) for `client_secret_post` only signs in with
  `client_auth: client_secret_post`; the same client with `client_secret_basic` is refused at the token
  endpoint (`invalid_client`), so the method really is the one configured;
- `capabilities.pkce: true` on that issuer sends an S256 challenge and signs in; `authflow matrix` gives the
  advisory that the issuer does not advertise S256 (the peer accepts the challenge without checking it, so
  the test shows the forced path, not the peer's verification); `authflow check` notes it too.

Then `type: oauth2` configured in YAML alone against a plain OAuth 2.0 server written here whose token
endpoint accepts only `private_key_jwt` and checks each assertion with PyJWT (an independent JOSE
implementation): signature, `aud` the token endpoint, `iss` = `sub` = the client, a short lifetime, a `jti`
never seen before; a client sending a secret instead is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import jwt  # PyJWT
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import authflow_harness as harness

SUBJECT = "alice-3p"


@pytest.fixture(scope="module")
def provider(tmp_path_factory):
    """`python -m oidc_provider_mock` on a free loopback port, registration required; stopped afterwards."""
    python = os.environ.get("AUTHFLOW_PYTHON", sys.executable)
    check = subprocess.run([python, "-c", "import oidc_provider_mock"], capture_output=True, text=True)
    if check.returncode != 0:
        harness.missing("oidc-provider-mock is not installed (pip install -r Tests/e2e/requirements.txt)")
    port = harness.free_port()
    log = open(tmp_path_factory.mktemp("op") / "op.log", "w+")
    claims = json.dumps({"sub": SUBJECT, "email": "alice@example.com", "email_verified": True, "name": "Alice"})
    process = subprocess.Popen(
        [python, "-W", "ignore", "-m", "oidc_provider_mock", "-p", str(port), "-r", "true", "-n", "true",
         "--user-claims", claims],
        stdout=log, stderr=subprocess.STDOUT)
    issuer = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if harness.direct.get(issuer + "/.well-known/openid-configuration", timeout=2).status_code == 200:
                    break
            except Exception:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise AssertionError(f"oidc-provider-mock did not start: {log.read()[-2000:]}")
            time.sleep(0.2)
        yield issuer
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def register(issuer: str, redirect_uri: str, method: str) -> dict:
    response = harness.direct.post(issuer + "/oauth2/clients", timeout=harness.HTTP_TIMEOUT, json={
        "redirect_uris": [redirect_uri], "token_endpoint_auth_method": method})
    assert response.status_code == 201, response.text[:500]
    return response.json()


def app_with(servers, issuer: str, *, client_auth: str, pkce: bool, method: str = "client_secret_post"):
    """`authflow serve` (not sandbox) with one `type: oidc` provider `corp` on `issuer`, its client registered
    there for `method`."""
    directory = servers.directory()
    port = harness.free_port()
    client = register(issuer, f"http://localhost:{port}/auth/corp/callback", method)
    block = (
        "  corp:\n    type: oidc\n"
        f"    issuer: {issuer}\n    client_id: {client['client_id']}\n    client_secret: {client['client_secret']}\n"
        f"    client_auth: {client_auth}\n    capabilities: {{pkce: {'true' if pkce else 'false'}}}\n")
    config = harness.write_config(directory, port=port, providers=(), extra_providers=block)
    return servers.start(config, sandbox=False), config


def sign_in(app) -> tuple:
    """Login at the app, the provider's authorization form (submitted for SUBJECT), the callback."""
    browser = app.browser()
    start = browser.begin("corp")
    assert start.status_code == 302, start.text[:300]
    authorize_url = start.headers["Location"]
    page = browser.get(authorize_url, initiator=browser.app)
    assert page.status_code == 200, page.text[:300]
    answer = browser.post(authorize_url, initiator=authorize_url, data={"sub": SUBJECT},
                          headers={"Origin": harness.origin_of(authorize_url)})
    assert answer.status_code in (302, 303), answer.text[:300]
    callback = urljoin(authorize_url, answer.headers["Location"])
    assert callback.startswith(browser.app + "/auth/corp/callback?"), callback
    result = browser.get(callback, initiator=authorize_url)
    return browser, authorize_url, result


def test_client_secret_post_signs_in_where_basic_is_refused(servers, provider):
    app, _ = app_with(servers, provider, client_auth="client_secret_post", pkce=False)
    browser, authorize_url, result = sign_in(app)
    harness.expect_redirect(result, "/", context="client_secret_post callback")
    session = browser.session_info().json()
    assert session["provider"] == "corp"
    assert session["subject"] == SUBJECT
    assert session["email"] == "alice@example.com" and session["email_verified"] is True
    assert "code_challenge" not in parse_qs(urlsplit(authorize_url).query)

    # The same kind of client (registered for post only) with Basic: the peer refuses the client.
    app, _ = app_with(servers, provider, client_auth="client_secret_basic", pkce=False)
    browser, _, result = sign_in(app)
    assert result.status_code == 401, result.text[:300]
    assert result.json()["error"] == "token_endpoint_error"
    assert browser.session_info().status_code == 401


def test_pkce_forced_on_an_issuer_that_does_not_advertise_it(servers, provider):
    discovery = harness.direct.get(provider + "/.well-known/openid-configuration", timeout=5).json()
    assert "code_challenge_methods_supported" not in discovery
    app, config = app_with(servers, provider, client_auth="client_secret_post", pkce=True)
    browser, authorize_url, result = sign_in(app)
    query = parse_qs(urlsplit(authorize_url).query)
    assert query["code_challenge_method"] == ["S256"]
    assert len(query["code_challenge"][0]) == 43
    harness.expect_redirect(result, "/", context="forced PKCE callback")
    assert browser.session_info().json()["subject"] == SUBJECT

    matrix = subprocess.run([harness.authflow_binary(), "matrix", "--config", str(config), "--format", "json"],
                            capture_output=True, text=True, timeout=60)
    assert matrix.returncode == 0, matrix.stderr[-2000:]
    row = json.loads(matrix.stdout)["providers"][0]
    assert row["client_auth"] == "client_secret_post"
    assert row["capabilities"]["pkce"] == {"support": "optional", "enabled": True}
    advisories = " ".join(row["advisories"])
    assert "does not list S256" in advisories
    assert "private_key_jwt is the hardened choice" in advisories

    check = subprocess.run([harness.authflow_binary(), "check", "--config", str(config)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr[-2000:]
    assert "note: corp: PKCE is on although the issuer's discovery document does not list S256" in check.stdout


# ---------------------------------------------------------------------------------------------
# type: oauth2 with private_key_jwt, against a plain OAuth 2.0 server whose token endpoint checks the
# assertion with PyJWT (an independent JOSE implementation) and accepts no other client authentication.
# ---------------------------------------------------------------------------------------------

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


class PlainOAuthServer:
    """Authorization (redirects straight back with a code), token (private_key_jwt only, checked with PyJWT)
    and a userinfo returning `{"data": {"id": 4242, ...}}`."""

    def __init__(self, client_id: str, public_key):
        self.client_id = client_id
        self.public_key = public_key
        self.codes: dict[str, str] = {}
        self.assertions: list[dict] = []
        self.refusals: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status: int, body: dict):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):  # noqa: N802 (http.server's naming)
                url = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                if url.path == "/authorize":
                    code = os.urandom(8).hex()
                    owner.codes[code] = query["redirect_uri"]
                    self.send_response(302)
                    self.send_header("Location", query["redirect_uri"] + "?" + urlencode(
                        {"code": code, "state": query["state"]}))
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                elif url.path == "/me" and self.headers.get("Authorization") == "Bearer at-1":
                    self.answer(200, {"data": {"id": 4242, "email": "corp@example.com", "login": "corp-user"}})
                else:
                    self.answer(401, {"error": "invalid_token"})

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                token_url = f"http://127.0.0.1:{owner.port}/token"
                problem = None
                if "client_secret" in form or "Authorization" in self.headers:
                    problem = "a client secret was sent; this client is registered for private_key_jwt"
                elif form.get("client_assertion_type") != ASSERTION_TYPE or "client_assertion" not in form:
                    problem = "no client assertion"
                else:
                    try:
                        claims = jwt.decode(form["client_assertion"], owner.public_key, algorithms=["ES256"],
                                            audience=token_url, issuer=owner.client_id,
                                            options={"require": ["exp", "iat", "jti", "sub"]})
                        header = jwt.get_unverified_header(form["client_assertion"])
                        if claims["sub"] != owner.client_id or form.get("client_id") != owner.client_id:
                            problem = "sub or client_id is not the client"
                        elif claims["exp"] - claims["iat"] > 300:
                            problem = "assertion lives too long"
                        elif any(a["jti"] == claims["jti"] for a in owner.assertions):
                            problem = "jti replayed"
                        else:
                            owner.assertions.append({**claims, "kid": header.get("kid")})
                    except jwt.PyJWTError as error:
                        problem = f"assertion refused: {error}"
                if problem:
                    owner.refusals.append(problem)
                    self.answer(401, {"error": "invalid_client"})
                elif form.get("grant_type") == "authorization_code" and owner.codes.pop(form.get("code"), None):
                    self.answer(200, {"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600})
                else:
                    self.answer(400, {"error": "invalid_grant"})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def plain_oauth(tmp_path):
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    key_file = tmp_path / "client-key.pem"
    key_file.write_bytes(pem)
    server = PlainOAuthServer("corp-app", key.public_key())
    yield server, key_file
    server.stop()


def oauth2_app(servers, server: PlainOAuthServer, extra: str):
    base = f"http://127.0.0.1:{server.port}"
    block = (
        "  corp:\n    type: oauth2\n    client_id: corp-app\n"
        f"    endpoints:\n      authorization: {base}/authorize\n      token: {base}/token\n"
        f"      userinfo: {base}/me\n"
        "    claims: {subject: data.id, email: data.email, email_verified: true, name: data.login}\n" + extra)
    directory = servers.directory()
    config = harness.write_config(directory, port=harness.free_port(), providers=(), extra_providers=block)
    return servers.start(config, sandbox=False)


def test_oauth2_from_yaml_with_private_key_jwt_checked_by_pyjwt(servers, plain_oauth):
    server, key_file = plain_oauth
    app = oauth2_app(servers, server, f"    client_auth: private_key_jwt\n    private_key_file: {key_file}\n"
                                      "    key_id: corp-key-1\n")
    for _ in range(2):
        browser = app.browser()
        start = browser.begin("corp")
        assert start.status_code == 302, start.text[:300]
        assert parse_qs(urlsplit(start.headers["Location"]).query)["code_challenge_method"] == ["S256"]
        answer = browser.get(start.headers["Location"], initiator=browser.app)
        result = browser.get(answer.headers["Location"], initiator=f"http://127.0.0.1:{server.port}")
        harness.expect_redirect(result, "/", context="oauth2 private_key_jwt callback")
        session = browser.session_info().json()
        assert session["subject"] == "4242"  # the numeric data.id, as its decimal string
        assert session["email"] == "corp@example.com" and session["email_verified"] is True
        assert session["name"] == "corp-user"
    assert server.refusals == []
    assert len(server.assertions) == 2 and server.assertions[0]["jti"] != server.assertions[1]["jti"]
    assert all(a["kid"] == "corp-key-1" for a in server.assertions)


def test_oauth2_with_a_client_secret_is_refused_where_private_key_jwt_is_enforced(servers, plain_oauth):
    server, _ = plain_oauth
    app = oauth2_app(servers, server, "    client_secret: not-accepted-here\n    client_auth: client_secret_post\n")
    browser = app.browser()
    start = browser.begin("corp")
    answer = browser.get(start.headers["Location"], initiator=browser.app)
    result = browser.get(answer.headers["Location"], initiator=f"http://127.0.0.1:{server.port}")
    assert result.status_code == 401, result.text[:300]
    assert result.json()["error"] == "token_endpoint_error"
    assert server.refusals == ["a client secret was sent; this client is registered for private_key_jwt"]
