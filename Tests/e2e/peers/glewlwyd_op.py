"""glewlwyd (Debian package `glewlwyd`, a C OpenID Provider) on loopback with a throwaway SQLite database.

`GlewlwydOP.start(directory)` writes a configuration and a fresh database (the package's own SQL init script)
into `directory`, starts `glewlwyd` on a free port and, through its admin REST API (signed in as the init
script's administrator), creates:

- an `oidc` plugin instance with pushed authorization requests required, DPoP allowed, RFC 9207's `iss` in
  the authorization response (`oauth-as-iss-id`), PKCE, refresh tokens and the revocation endpoint on;
- the `openid` scope behind the password scheme, and a user with a password and that scope;
- a confidential client that authenticates with `private_key_jwt` only, its public JWKS registered.

The sign-in has no browser: `login(session, authorize_url)` does what glewlwyd's login page does: posts the
user's password to `POST /api/auth/`, grants the client the scope (`PUT /api/auth/grant/{client_id}`), then
follows the authorization URL with glewlwyd's session cookie and, when glewlwyd sends it to the login page
for its "Continue" step, the page's `callback_url` with `g_continue`; glewlwyd answers with the redirect to
the client's callback.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import requests
from jwcrypto import jwk

INIT_SQL = Path("/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3")
INIT_SQL_DOC = Path("/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz")
ADMIN = ("admin", "password")  # the administrator the package's init script creates
PLUGIN = "oidc"
CLIENT_ID = "authflow-rp"
USER = "alice"
USER_PASSWORD = "correct horse battery staple"
USER_EMAIL = "alice@example.com"
USER_NAME = "Alice Glewlwyd"
HTTP_TIMEOUT = 10

CONFIG = """\
port={port}
bind_address="127.0.0.1"
external_url="{base}"
login_url="login.html"
static_files_path="/usr/share/glewlwyd/webapp/"
api_prefix="api"
log_mode="file"
log_level="INFO"
log_file="{directory}/glewlwyd.log"
cookie_secure=0
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="/usr/lib/glewlwyd/user"
client_module_path="/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="/usr/lib/glewlwyd/scheme"
plugin_module_path="/usr/lib/glewlwyd/plugin"
use_secure_connection=false
# glewlwyd 2.7.5 refuses to start without these two paths set, even with use_secure_connection off.
secure_connection_key_file="{directory}/unused.key"
secure_connection_pem_file="{directory}/unused.pem"
hash_algorithm="SHA512"
database = {{ type = "sqlite3"; path = "{directory}/glewlwyd.db"; }};
static_files_mime_types = ( {{ extension = ".html"; mime_type = "text/html"; }} );
"""


def available() -> str | None:
    """Why glewlwyd cannot run here, or None when it can."""
    if shutil.which("glewlwyd") is None:
        return "glewlwyd is not installed (apt-get install glewlwyd; scripts/lib/setup.sh lists it)"
    if not INIT_SQL.exists() and not INIT_SQL_DOC.exists():
        return f"glewlwyd's SQLite init script is missing ({INIT_SQL})"
    return None


def _init_sql() -> str:
    if INIT_SQL.exists():
        return INIT_SQL.read_text()
    import gzip
    return gzip.decompress(INIT_SQL_DOC.read_bytes()).decode()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _check(response: requests.Response, what: str) -> requests.Response:
    if response.status_code != 200:
        raise AssertionError(f"glewlwyd {what}: {response.status_code} {response.text[:500]}")
    return response


class GlewlwydOP:
    def __init__(self, directory: Path, port: int, process: subprocess.Popen, client_key: jwk.JWK,
                 options: dict):
        self.directory = directory
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.api = self.base + "/api"
        self.issuer = f"{self.api}/{PLUGIN}"
        self.process = process
        self.client_key = client_key
        self.options = options
        self.admin = requests.Session()

    # ---- lifecycle ----------------------------------------------------------------------------------

    @classmethod
    def start(cls, directory: Path, *, redirect_uris: list[str], dpop_nonce: bool = False,
              access_token_duration: int = 3600) -> "GlewlwydOP":
        import sqlite3
        directory.mkdir(parents=True, exist_ok=True)
        database = sqlite3.connect(directory / "glewlwyd.db")
        database.executescript(_init_sql())
        database.commit()
        database.close()
        client_key = jwk.JWK.generate(kty="EC", crv="P-256", kid="authflow-rp-key", alg="ES256", use="sig")
        (directory / "client-key.pem").write_bytes(client_key.export_to_pem(private_key=True, password=None))
        last_error = None
        for _ in range(3):  # a free port may be taken between choosing it and glewlwyd binding it
            port = _free_port()
            base = f"http://127.0.0.1:{port}"
            config = directory / "glewlwyd.conf"
            config.write_text(CONFIG.format(port=port, base=base, directory=directory))
            log = open(directory / "stdout.log", "w")
            process = subprocess.Popen(["glewlwyd", f"--config-file={config}"], stdout=log,
                                       stderr=subprocess.STDOUT, cwd=directory)
            log.close()
            op = cls(directory, port, process, client_key,
                     {"dpop_nonce": dpop_nonce, "access_token_duration": access_token_duration,
                      "redirect_uris": redirect_uris})
            try:
                op._wait_ready()
            except AssertionError as error:
                last_error = error
                op.stop()
                continue
            try:
                op._provision()
            except BaseException:
                op.stop()
                raise
            return op
        raise AssertionError(f"glewlwyd did not start: {last_error}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 20
        while True:
            try:
                requests.get(self.api + "/auth/scheme/", timeout=1)
                return
            except requests.RequestException:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("glewlwyd did not answer: " + self.diagnostics())
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def diagnostics(self) -> str:
        parts = []
        for name in ("stdout.log", "glewlwyd.log"):
            path = self.directory / name
            if path.exists():
                parts.append(f"--- {name}\n" + path.read_text(errors="replace")[-3000:])
        return "\n".join(parts)

    # ---- provisioning through the admin API -------------------------------------------------------------

    def _provision(self) -> None:
        _check(self.admin.post(self.api + "/auth/", json={"username": ADMIN[0], "password": ADMIN[1]},
                               timeout=HTTP_TIMEOUT), "admin login")
        signing = jwk.JWK.generate(kty="RSA", size=2048, kid="glewlwyd-rs256", alg="RS256", use="sig")
        private_jwks = json.dumps({"keys": [json.loads(signing.export_private())]})
        parameters = {
            "iss": self.issuer,
            "jwks-private": private_jwks,
            "default-kid": "glewlwyd-rs256",
            "access-token-duration": self.options["access_token_duration"],
            "refresh-token-duration": 1209600,
            "code-duration": 600,
            "refresh-token-rolling": True,
            "allow-non-oidc": False,
            "auth-type-code-enabled": True,
            "auth-type-token-enabled": False,
            "auth-type-id-token-enabled": False,
            "auth-type-none-enabled": False,
            "auth-type-password-enabled": False,
            "auth-type-client-enabled": False,
            "auth-type-refresh-enabled": True,
            "allowed-scope": ["openid"],
            "name-claim": "mandatory",
            "email-claim": "mandatory",
            "pkce-allowed": True,
            "pkce-method-plain-allowed": False,
            "introspection-revocation-allowed": True,
            "introspection-revocation-allow-target-client": True,
            "client-jwks-parameter": "jwks",
            "client-pubkey-parameter": "",
            "request-parameter-allow": True,
            "oauth-as-iss-id": True,
            "oauth-par-allowed": True,
            "oauth-par-required": True,
            "oauth-par-duration": 90,
            "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:",
            "oauth-dpop-allowed": True,
            "oauth-dpop-iat-duration": 60,
            "oauth-dpop-iat-gap-duration": 5,
            "oauth-dpop-nonce-mandatory": self.options["dpop_nonce"],
            "oauth-dpop-nonce-counter": 10,
            "oauth-dpop-dpop_bound_access_tokens-property": "dpop_bound_access_tokens",
            "jwks-show": True,
            "session-management-allowed": False,
        }
        _check(self.admin.post(self.api + "/mod/plugin/", timeout=HTTP_TIMEOUT, json={
            "module": "oidc", "name": PLUGIN, "display_name": "OpenID Connect", "enabled": True,
            "parameters": parameters}), "plugin instance")
        # `openid` behind the password: the init script leaves it without any authentication.
        _check(self.admin.put(self.api + "/scope/openid", timeout=HTTP_TIMEOUT, json={
            "name": "openid", "display_name": "Open ID", "description": "OpenID Connect",
            "password_required": True, "password_max_age": 0, "scheme": {}}), "openid scope")
        _check(self.admin.post(self.api + "/user/", timeout=HTTP_TIMEOUT, json={
            "username": USER, "name": USER_NAME, "email": USER_EMAIL, "enabled": True,
            "password": USER_PASSWORD, "scope": ["openid"]}), "user")
        public = json.loads(self.client_key.export_public())
        _check(self.admin.post(self.api + "/client/", timeout=HTTP_TIMEOUT, json={
            "client_id": CLIENT_ID, "name": "AuthFlow", "enabled": True, "confidential": True,
            "redirect_uri": self.options["redirect_uris"], "authorization_type": ["code", "refresh_token"],
            "token_endpoint_auth_method": ["private_key_jwt"], "jwks": {"keys": [public]}}), "client")

    # ---- the user's side ------------------------------------------------------------------------------

    def login(self, browser: requests.Session, authorize_url: str) -> requests.Response:
        """Signs the user in at glewlwyd (its login API), grants the client `openid`, then opens the
        authorization URL; returns glewlwyd's answer (a redirect to the client's callback)."""
        _check(browser.post(self.api + "/auth/", json={"username": USER, "password": USER_PASSWORD},
                            timeout=HTTP_TIMEOUT), "user login")
        _check(browser.put(f"{self.api}/auth/grant/{CLIENT_ID}", json={"scope": "openid"},
                           timeout=HTTP_TIMEOUT), "grant")
        answer = browser.get(authorize_url, allow_redirects=False, timeout=HTTP_TIMEOUT)
        location = answer.headers.get("Location", "")
        if answer.status_code in (302, 303) and location.startswith(self.base + "/login.html?"):
            # glewlwyd shows its login page once more with a "Continue" button even for a signed-in user who
            # granted the scope; the button opens `callback_url` with `g_continue` added, as done here.
            callback = parse_qs(urlsplit(location).query)["callback_url"][0]
            answer = browser.get(callback + "&g_continue", allow_redirects=False, timeout=HTTP_TIMEOUT)
        return answer

    def query(self, sql: str, *parameters) -> list[tuple]:
        """Rows of glewlwyd's own database (read-only): what it recorded, e.g. the DPoP key a refresh token is
        bound to (`gpo_refresh_token.gpor_dpop_jkt`) or the proofs it accepted (`gpo_dpop`)."""
        import sqlite3
        connection = sqlite3.connect(f"file:{self.directory / 'glewlwyd.db'}?mode=ro", uri=True, timeout=10)
        try:
            return connection.execute(sql, parameters).fetchall()
        finally:
            connection.close()

    def discovery(self) -> dict:
        return _check(requests.get(self.issuer + "/.well-known/openid-configuration", timeout=HTTP_TIMEOUT),
                      "discovery").json()


if __name__ == "__main__":  # a manual run: start, print the discovery document, wait for Ctrl-C
    import sys
    import tempfile
    op = GlewlwydOP.start(Path(tempfile.mkdtemp(prefix="glewlwyd-")), redirect_uris=sys.argv[1:] or
                          ["http://localhost:1/auth/corp/callback"])
    print(json.dumps(op.discovery(), indent=1))
    print("issuer", op.issuer, "directory", op.directory, flush=True)
    try:
        op.process.wait()
    except KeyboardInterrupt:
        op.stop()
