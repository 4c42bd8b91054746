"""A small OpenID Provider for `test_conformance.py`: discovery, JWKS, authorization (answers at once with a
redirect, as the conformance suite's stand-in provider does), pushed authorization requests, token and
userinfo, each of which a test module may make misbehave in one way.

The provider is written with jwcrypto (signing and client-assertion checks) and the standard library's HTTP
server; it knows one client. What each test module changes is a `Faults` value; everything the relying party
sent is kept in `calls`, so a test can show that the relying party stopped (no token or userinfo request after
a refused response), as the suite checks.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from html import escape
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, unquote_plus, urlencode, urlsplit

from jwcrypto import jwk, jws, jwt

ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

Mapping = Callable[[dict], dict]


def identity(value: dict) -> dict:
    return value


@dataclass
class Faults:
    """One test module's misbehaviour. Every hook gets the well-formed value and returns what is sent."""

    #: the discovery document
    discovery: Mapping = identity
    #: the id_token's claims, before signing
    id_token_claims: Mapping = identity
    #: how the id_token is signed: "ES256", "RS256", "PS256", "none" (unsigned) or "HS256" (with the client
    #: secret, as a client registered for HS256 would expect)
    signing: str = "ES256"
    #: alter one byte of the signature after signing
    corrupt_signature: bool = False
    #: put the signing key's `kid` in the id_token header
    kid_in_header: bool = True
    #: the JWKS: "one-per-alg" (an EC and an RSA key, with kids), "single" (only the signing key, no kid),
    #: "several-without-kid" (two RSA keys, neither with a kid, the signing one among them),
    #: "with-unusable" (one-per-alg, plus a key of a post-quantum type with an unknown parameter set and one of
    #: a made-up type, each with its own kid)
    jwks: str = "one-per-alg"
    #: rotate the signing keys (new keys, new kids) right before the next id_token is signed
    rotate_before_signing: bool = False
    #: the authorization response's query parameters
    authorization_response: Mapping = identity
    #: the token endpoint's JSON answer
    token_response: Mapping = identity
    #: the userinfo JSON
    userinfo: Mapping = identity
    #: answer the authorization request with this OAuth error (`error`, `state`) instead of a code
    authorization_error: str | None = None
    #: the query the end-session endpoint sends the browser back with (RP-Initiated Logout)
    end_session_response: Mapping = identity
    #: DPoP (RFC 9449): the token and userinfo endpoints demand a server nonce (`use_dpop_nonce` first)
    dpop_nonce: bool = True
    #: DPoP: every proof is answered with `use_dpop_nonce` and a new nonce, however fresh its nonce
    dpop_nonce_every_time: bool = False
    #: DPoP: how the userinfo endpoint writes the scheme of its `WWW-Authenticate` challenge
    dpop_challenge_scheme: str = "DPoP"
    #: the pushed authorization request endpoint's (status, JSON) answer
    par_response: Callable[[int, dict], tuple[int, dict]] = lambda status, body: (status, body)


@dataclass
class Call:
    method: str
    path: str
    query: dict
    form: dict
    headers: dict


class Keys:
    """The provider's signing keys: EC P-256 (ES256), RSA (RS256 and PS256), and a second RSA key."""

    def __init__(self):
        self.generation = 0
        self.rotate()

    def rotate(self) -> None:
        self.generation += 1
        tag = f"g{self.generation}-{secrets.token_hex(3)}"
        self.ec = jwk.JWK.generate(kty="EC", crv="P-256", kid=f"ec-{tag}", use="sig")
        self.rsa = jwk.JWK.generate(kty="RSA", size=2048, kid=f"rsa-{tag}", use="sig")
        self.rsa_other = jwk.JWK.generate(kty="RSA", size=2048, kid=f"rsa2-{tag}", use="sig")

    def for_alg(self, alg: str) -> jwk.JWK:
        return self.ec if alg == "ES256" else self.rsa


def public_without_kid(key: jwk.JWK) -> dict:
    public = json.loads(key.export_public())
    public.pop("kid", None)
    return public


class Provider:
    """The provider on a free loopback port (`issuer`), serving until `stop()`."""

    def __init__(self, *, client_id: str = "conformance-rp", client_secret: str | None = None,
                 client_public_key: jwk.JWK | None = None, par: bool = False, iss_parameter: bool = False,
                 auth_methods: tuple[str, ...] = ("client_secret_basic",), dpop: bool = False):
        self.client_id = client_id
        self.client_secret = client_secret or secrets.token_urlsafe(32)
        self.client_public_key = client_public_key
        self.par = par
        #: FAPI 2.0 mode: a client assertion's `aud` must be the issuer as a string, as the suite's FAPI 2.0
        #: provider checks; RS256 is advertised beside the algorithms FAPI 2.0 allows, as many servers do
        self.fapi = par
        self.iss_parameter = iss_parameter
        self.auth_methods = auth_methods
        #: DPoP required at the token endpoint (and so at userinfo for the tokens it binds)
        self.dpop = dpop
        self.dpop_nonce_value = secrets.token_urlsafe(16)
        #: the userinfo endpoint's own nonce, as a resource server apart from the authorization server has
        self.rs_nonce_value = secrets.token_urlsafe(16)
        #: (endpoint, header, claims) of each DPoP proof that verified
        self.dpop_proofs: list[tuple[str, dict, dict]] = []
        self.dpop_ids: set[str] = set()
        self.faults = Faults()
        self.keys = Keys()
        self.calls: list[Call] = []
        self.codes: dict[str, dict] = {}
        self.pushed: dict[str, tuple[dict, float]] = {}
        #: access token -> the JWK thumbprint it is bound to (None: a Bearer token)
        self.access_tokens: dict[str, str | None] = {}
        self.client_auth_seen: list[str] = []
        #: (endpoint, the `aud` of the client assertion) for each private_key_jwt request
        self.assertion_audiences: list[tuple[str, object]] = []
        self.assertion_ids: set[str] = set()
        self.refusals: list[str] = []
        self.subject = "conformance-user-" + secrets.token_hex(4)
        #: the provider session (`sid`) of the last id_token
        self.sid: str | None = None
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reset(self, faults: Faults) -> None:
        """A new test module on the same provider: its faults, and nothing recorded yet."""
        with self.lock:
            self.faults = faults
            self.calls.clear()
            self.client_auth_seen.clear()
            self.assertion_audiences.clear()
            self.dpop_proofs.clear()
            self.refusals.clear()

    def paths(self, method: str | None = None) -> list[str]:
        return [c.path for c in self.calls if method is None or c.method == method]

    def called(self, path: str) -> bool:
        return path in self.paths()

    # -- documents --------------------------------------------------------------------------------

    def discovery_document(self) -> dict:
        document = {
            "issuer": self.issuer,
            "authorization_endpoint": self.issuer + "/authorize",
            "token_endpoint": self.issuer + "/token",
            "userinfo_endpoint": self.issuer + "/userinfo",
            "jwks_uri": self.issuer + "/jwks",
            "response_types_supported": ["code"],
            "response_modes_supported": ["query", "form_post"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256", "RS256", "PS256"],
            "token_endpoint_auth_methods_supported": list(self.auth_methods),
            "token_endpoint_auth_signing_alg_values_supported": ["ES256", "RS256", "PS256"],
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": ["openid", "email", "profile"],
            "grant_types_supported": ["authorization_code"],
            "end_session_endpoint": self.issuer + "/logout",
            "backchannel_logout_supported": True,
            "backchannel_logout_session_supported": True,
        }
        if self.fapi:
            document["id_token_signing_alg_values_supported"] = ["ES256", "PS256", "EdDSA", "RS256"]
        if self.par:
            document["pushed_authorization_request_endpoint"] = self.issuer + "/par"
            document["require_pushed_authorization_requests"] = True
        if self.iss_parameter:
            document["authorization_response_iss_parameter_supported"] = True
        if self.dpop:
            document["dpop_signing_alg_values_supported"] = ["ES256", "EdDSA"]
        return self.faults.discovery(document)

    def jwks_document(self) -> dict:
        keys = self.keys
        if self.faults.jwks == "single":
            return {"keys": [public_without_kid(keys.for_alg(self.faults.signing))]}
        if self.faults.jwks == "several-without-kid":
            return {"keys": [public_without_kid(keys.rsa_other), public_without_kid(keys.rsa)]}
        usable = [json.loads(keys.ec.export_public()), json.loads(keys.rsa.export_public())]
        if self.faults.jwks == "with-unusable":
            unusable = [{"kty": "AKP", "alg": "ML-DSA-99", "kid": "pq-1", "use": "sig", "pub": "AAEC"},
                        {"kty": "XYZ", "kid": "made-up-1", "use": "sig", "x": "AAEC"}]
            return {"keys": unusable[:1] + usable + unusable[1:]}
        return {"keys": usable}

    def id_token(self, grant: dict) -> str:
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": self.subject, "aud": self.client_id, "iat": now,
                  "exp": now + 300, "auth_time": now - 5, "email": "conformance@example.com",
                  "email_verified": True, "name": "Conformance User"}
        self.sid = secrets.token_urlsafe(12)
        claims["sid"] = self.sid
        if grant.get("nonce") is not None:
            claims["nonce"] = grant["nonce"]
        claims = self.faults.id_token_claims(claims)
        if self.faults.rotate_before_signing:
            self.keys.rotate()
            self.faults.rotate_before_signing = False
        return self.sign(claims)

    def logout_token(self, change: Mapping = identity, signing: str | None = None) -> str:
        """A Back-Channel Logout token (OpenID Connect Back-Channel Logout 1.0 §2.4) for the last id_token's
        subject and session, changed by `change` and signed as `signing` says (default: as id_tokens are)."""
        now = int(time.time())
        claims = change({"iss": self.issuer, "aud": self.client_id, "iat": now, "exp": now + 120,
                         "jti": secrets.token_urlsafe(12), "sub": self.subject, "sid": self.sid,
                         "events": {"http://schemas.openid.net/event/backchannel-logout": {}}})
        saved = self.faults.signing
        self.faults.signing = signing or saved
        try:
            return self.sign(claims, typ="logout+jwt")
        finally:
            self.faults.signing = saved

    def sign(self, claims: dict, typ: str = "JWT") -> str:
        mode = self.faults.signing
        payload = json.dumps(claims)
        if mode == "none":
            header = {"alg": "none", "typ": typ}
            encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()  # noqa: E731
            return f"{encode(json.dumps(header).encode())}.{encode(payload.encode())}."
        if mode == "HS256":
            key = jwk.JWK(kty="oct", k=base64.urlsafe_b64encode(self.client_secret.encode()).rstrip(b"=").decode())
            token = jws.JWS(payload)
            token.add_signature(key, alg="HS256", protected=json.dumps({"alg": "HS256", "typ": typ}))
            compact = token.serialize(compact=True)
            return self._corrupt(compact) if self.faults.corrupt_signature else compact
        alg = mode
        key = self.keys.for_alg(alg)
        header = {"alg": alg, "typ": typ}
        if self.faults.kid_in_header and self.faults.jwks in ("one-per-alg", "with-unusable"):
            header["kid"] = key["kid"]
        token = jws.JWS(payload)
        token.add_signature(key, alg=alg, protected=json.dumps(header))
        compact = token.serialize(compact=True)
        return self._corrupt(compact) if self.faults.corrupt_signature else compact

    @staticmethod
    def _corrupt(compact: str) -> str:
        head, body, signature = compact.split(".")
        raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
        raw[len(raw) // 2] ^= 0x5A
        return f"{head}.{body}.{base64.urlsafe_b64encode(bytes(raw)).rstrip(b'=').decode()}"

    # -- client authentication ------------------------------------------------------------------------

    def authenticate(self, headers: dict, form: dict, endpoint: str) -> str | None:
        """The client id when the request authenticates the client; None (and a recorded reason) when not."""
        authorization = headers.get("authorization", "")
        if authorization.lower().startswith("basic "):
            decoded = base64.b64decode(authorization[6:]).decode()
            client, _, secret = decoded.partition(":")
            if unquote_plus(client) == self.client_id and unquote_plus(secret) == self.client_secret \
                    and "client_secret_basic" in self.auth_methods:
                self.client_auth_seen.append("client_secret_basic")
                return self.client_id
            self.refusals.append(f"{endpoint}: Basic credentials refused")
            return None
        if form.get("client_assertion_type") == ASSERTION_TYPE and self.client_public_key is not None:
            try:
                token = jwt.JWT(jwt=form["client_assertion"], key=self.client_public_key,
                                algs=["ES256", "RS256", "PS256"])
                claims = json.loads(token.claims)
            except Exception as error:  # noqa: BLE001 (any verification failure refuses the client)
                self.refusals.append(f"{endpoint}: assertion refused: {error}")
                return None
            self.assertion_audiences.append((endpoint, claims.get("aud")))
            audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
            accepted = {self.issuer} if self.fapi else {self.issuer, self.issuer + "/token", self.issuer + "/par"}
            jti = claims.get("jti")
            if claims.get("iss") != self.client_id or claims.get("sub") != self.client_id \
                    or not accepted & set(audiences) or (self.fapi and not isinstance(claims["aud"], str)) \
                    or not isinstance(claims.get("exp"), int) \
                    or claims["exp"] < time.time() or not isinstance(jti, str) or jti in self.assertion_ids:
                self.refusals.append(f"{endpoint}: assertion claims refused: {sorted(claims)}")
                return None
            self.assertion_ids.add(jti)
            self.client_auth_seen.append("private_key_jwt")
            return self.client_id
        self.refusals.append(f"{endpoint}: no client authentication")
        return None

    # -- DPoP (RFC 9449) -------------------------------------------------------------------------------

    def check_dpop(self, proof: str | None, method: str, url: str, endpoint: str,
                   access_token: str | None = None, nonce: bool = True,
                   resource: bool = False) -> tuple[str | None, str | None]:
        """Checks a DPoP proof (RFC 9449 §4.3): (the key's thumbprint, None), (None, None) without a proof, or
        (None, the OAuth error code) when it is refused."""
        if proof is None:
            return None, None
        try:
            head, body, _ = proof.split(".")
            header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
            key = jwk.JWK(**header["jwk"])
            if header.get("typ") != "dpop+jwt" or header.get("alg") not in ("ES256", "EdDSA") or key.has_private:
                return None, "invalid_dpop_proof"
            token = jws.JWS()
            token.deserialize(proof)
            token.verify(key, alg=header["alg"])
            claims = json.loads(token.payload)
        except Exception:  # noqa: BLE001 (any malformed or unverifiable proof is refused)
            return None, "invalid_dpop_proof"
        fresh = isinstance(claims.get("iat"), int) and abs(claims["iat"] - time.time()) < 60
        bound = access_token is None or claims.get("ath") == base64.urlsafe_b64encode(
            hashlib.sha256(access_token.encode()).digest()).rstrip(b"=").decode()
        if claims.get("htm") != method or claims.get("htu") != url or not fresh or not bound \
                or not isinstance(claims.get("jti"), str) or claims["jti"] in self.dpop_ids:
            self.refusals.append(f"{endpoint}: DPoP proof refused: {sorted(claims)}")
            return None, "invalid_dpop_proof"
        expected = self.rs_nonce_value if resource else self.dpop_nonce_value
        if nonce and (self.faults.dpop_nonce_every_time
                      or (self.faults.dpop_nonce and claims.get("nonce") != expected)):
            if self.faults.dpop_nonce_every_time:
                self.dpop_nonce_value = self.rs_nonce_value = secrets.token_urlsafe(16)
            return None, "use_dpop_nonce"
        self.dpop_ids.add(claims["jti"])
        self.dpop_proofs.append((endpoint, header, claims))
        return key.thumbprint(), None

    # -- HTTP -------------------------------------------------------------------------------------------

    def _handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def send_json(self, status: int, body: dict, extra: dict | None = None):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "no-store")
                for name, value in (extra or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def record(self, form: dict) -> tuple[str, dict]:
                url = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                headers = {k.lower(): v for k, v in self.headers.items()}
                with provider.lock:
                    provider.calls.append(Call(self.command, url.path, query, form, headers))
                return url.path, query

            def do_GET(self):  # noqa: N802 (http.server's naming)
                path, query = self.record({})
                if path == "/.well-known/openid-configuration":
                    self.send_json(200, provider.discovery_document())
                elif path == "/jwks":
                    self.send_json(200, provider.jwks_document())
                elif path == "/authorize":
                    self.authorize(query)
                elif path == "/userinfo":
                    self.userinfo()
                elif path == "/logout":
                    self.end_session(query)
                else:
                    self.send_json(404, {"error": "not_found"})

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode()
                form = {k: v[0] for k, v in parse_qs(body).items()}
                path, _ = self.record(form)
                headers = {k.lower(): v for k, v in self.headers.items()}
                if path == "/token":
                    self.token(headers, form)
                elif path == "/par":
                    self.pushed(headers, form)
                else:
                    self.send_json(404, {"error": "not_found"})

            def authorize(self, query: dict):
                if "request_uri" in query:
                    entry = provider.pushed.pop(query["request_uri"], None)
                    if entry is None or entry[1] < time.time() or query.get("client_id") != provider.client_id:
                        self.send_json(400, {"error": "invalid_request_uri"})
                        return
                    query = entry[0]
                elif provider.par:
                    self.send_json(400, {"error": "invalid_request", "error_description": "PAR required"})
                    return
                if query.get("client_id") != provider.client_id or query.get("response_type") != "code":
                    self.send_json(400, {"error": "invalid_request"})
                    return
                if provider.faults.authorization_error is not None:
                    params = {"error": provider.faults.authorization_error, "state": query.get("state")}
                else:
                    code = secrets.token_urlsafe(24)
                    provider.codes[code] = query
                    params = {"code": code, "state": query.get("state")}
                if provider.iss_parameter:
                    params["iss"] = provider.issuer
                params = {k: v for k, v in provider.faults.authorization_response(params).items() if v is not None}
                if query.get("response_mode") == "form_post":
                    self.form_post(query["redirect_uri"], params)
                    return
                self.send_response(302)
                self.send_header("Location", query["redirect_uri"] + "?" + urlencode(params))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def end_session(self, query: dict):
                """RP-Initiated Logout 1.0: back to `post_logout_redirect_uri` with the client's `state`."""
                target = query.get("post_logout_redirect_uri")
                if target is None or query.get("client_id") != provider.client_id:
                    self.send_json(400, {"error": "invalid_request"})
                    return
                params = {k: v for k, v in provider.faults.end_session_response(
                    {"state": query.get("state")}).items() if v is not None}
                self.send_response(302)
                self.send_header("Location", target + ("?" + urlencode(params) if params else ""))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def form_post(self, action: str, params: dict):
                """OAuth 2.0 Form Post Response Mode: a page whose form posts the response to the client."""
                inputs = "".join(f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">'
                                 for k, v in params.items())
                page = (f'<!doctype html><html><body onload="document.forms[0].submit()">'
                        f'<form method="post" action="{escape(action)}">{inputs}</form></body></html>').encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def pushed(self, headers: dict, form: dict):
                if provider.authenticate(headers, form, "par") is None:
                    self.send_json(401, {"error": "invalid_client"})
                    return
                jkt, error = provider.check_dpop(headers.get("dpop"), "POST", provider.issuer + "/par", "par",
                                                 nonce=False)
                if error is not None:
                    self.send_json(400, {"error": error})
                    return
                params = {k: v for k, v in form.items() if not k.startswith("client_assertion")}
                if jkt is not None and params.setdefault("dpop_jkt", jkt) != jkt:
                    self.send_json(400, {"error": "invalid_dpop_proof", "error_description": "dpop_jkt"})
                    return
                request_uri = "urn:ietf:params:oauth:request_uri:" + secrets.token_urlsafe(16)
                provider.pushed[request_uri] = (params, time.time() + 60)
                status, body = provider.faults.par_response(201, {"request_uri": request_uri, "expires_in": 60})
                self.send_json(status, body)

            def token(self, headers: dict, form: dict):
                if provider.authenticate(headers, form, "token") is None:
                    self.send_json(401, {"error": "invalid_client"})
                    return
                nonce_header = {"DPoP-Nonce": provider.dpop_nonce_value} \
                    if provider.dpop and provider.faults.dpop_nonce else {}
                jkt, error = provider.check_dpop(headers.get("dpop"), "POST", provider.issuer + "/token", "token")
                if error is None and jkt is None and provider.dpop:
                    error = "invalid_dpop_proof"
                if error is not None:
                    self.send_json(400, {"error": error},
                                   {"DPoP-Nonce": provider.dpop_nonce_value} if error == "use_dpop_nonce" else {})
                    return
                grant = provider.codes.pop(form.get("code", ""), None)
                if grant is not None and grant.get("dpop_jkt") not in (None, jkt):
                    self.send_json(400, {"error": "invalid_grant", "error_description": "dpop_jkt"})
                    return
                if grant is None or form.get("redirect_uri") != grant.get("redirect_uri"):
                    self.send_json(400, {"error": "invalid_grant"})
                    return
                challenge = grant.get("code_challenge")
                if challenge is not None:
                    verifier = form.get("code_verifier", "")
                    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
                    if digest.decode() != challenge:
                        self.send_json(400, {"error": "invalid_grant", "error_description": "PKCE"})
                        return
                access = secrets.token_urlsafe(24)
                provider.access_tokens[access] = jkt
                body = {"access_token": access, "token_type": "DPoP" if jkt else "Bearer", "expires_in": 300,
                        "id_token": provider.id_token(grant)}
                self.send_json(200, provider.faults.token_response(body), nonce_header)

            def userinfo(self):
                scheme, _, token = self.headers.get("Authorization", "").partition(" ")
                bound = provider.access_tokens.get(token, "unknown")
                if bound == "unknown" or scheme.lower() != ("dpop" if bound else "bearer"):
                    self.send_json(401, {"error": "invalid_token"}, {"WWW-Authenticate": 'Bearer error="invalid_token"'})
                    return
                if bound is not None:
                    jkt, error = provider.check_dpop(self.headers.get("DPoP"), "GET", provider.issuer + "/userinfo",
                                                     "userinfo", access_token=token, resource=True)
                    if error is not None or jkt != bound:
                        self.send_json(401, {"error": error or "invalid_dpop_proof"},
                                       {"WWW-Authenticate": f'{provider.faults.dpop_challenge_scheme} '
                                                            f'error="{error or "invalid_dpop_proof"}"',
                                        "DPoP-Nonce": provider.rs_nonce_value})
                        return
                body = {"sub": provider.subject, "email": "conformance@example.com", "email_verified": True,
                        "name": "Conformance User"}
                self.send_json(200, provider.faults.userinfo(body))

        return Handler
