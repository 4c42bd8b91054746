#!/usr/bin/env python3
"""A minimal OpenID Provider around `idpyoidc.server` (PyPI `idpyoidc`, the IdentityPython / OpenID Foundation
community implementation), for the end-to-end tests.

  idpyoidc_op.py --port PORT --client-id ID --client-jwks FILE --redirect-uri URI [--user SUB]

Endpoints (all idpyoidc's own classes; this file only carries HTTP to them and back):
`/.well-known/openid-configuration`, `/authorization`, `/par` (RFC 9126, required: plain authorization
requests are refused), `/token` (`private_key_jwt` only), `/userinfo`, `/revoke` (RFC 7009,
`private_key_jwt` only), `/jwks`, PKCE S256 required, DPoP (RFC 9449) on the token and userinfo endpoints.
The authorization response always carries `iss` (idpyoidc adds it as its mix-up defence); its discovery
document does not say so, so this wrapper adds `authorization_response_iss_parameter_supported: true`
(RFC 9207 §3) to it. The user is authenticated without a form (idpyoidc's `NoAuthn`, as `--user`): the tests
are about the client's side.

Extra routes for the tests: `GET /_test/log` (every token, PAR, userinfo and revocation request seen: the grant
type, the client assertion's claims, whether a DPoP proof came, the pushed `dpop_jkt`, the answer's status,
`token_type` and the access token's `cnf`), `POST /_test/expire-par`
(every pushed request forgotten, as if its `request_uri` had expired).

Prints `READY <issuer>` on standard output once listening.
"""

from __future__ import annotations

import argparse
import base64
import json
import logging
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from cryptojwt.jws.jws import factory
from idpyoidc.message.oauth2 import ResponseMessage
from idpyoidc.message.oidc import AccessTokenRequest
from idpyoidc.server import Server
from idpyoidc.server.configure import OPConfiguration
from idpyoidc.server.exception import ClientAuthenticationError, UnAuthorizedClient
from idpyoidc.server.oidc.token import Token

AUTHN_METHODS = ["private_key_jwt"]


def configuration(issuer: str, user: str, dpop: bool) -> dict:
    conf = {
        "issuer": issuer,
        "httpc_params": {"verify": False, "timeout": 5},
        "keys": {"key_defs": [{"type": "RSA", "use": ["sig"]}, {"type": "EC", "crv": "P-256", "use": ["sig"]}],
                 "uri_path": "jwks"},
        "token_handler_args": {
            "code": {"kwargs": {"lifetime": 600}},
            "token": {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                      "kwargs": {"lifetime": 3600, "add_claims_by_scope": True}},
            "refresh": {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                        "kwargs": {"lifetime": 86400}},
            "id_token": {"class": "idpyoidc.server.token.id_token.IDToken", "kwargs": {}},
        },
        "endpoint": {
            "provider_config": {"path": ".well-known/openid-configuration",
                                "class": "idpyoidc.server.oidc.provider_config.ProviderConfiguration",
                                "kwargs": {}},
            "authorization": {"path": "authorization", "class": "idpyoidc.server.oidc.authorization.Authorization",
                              "kwargs": {"response_types_supported": ["code"],
                                         "response_modes_supported": ["query", "form_post"],
                                         "request_parameter_supported": True,
                                         "request_uri_parameter_supported": True,
                                         "require_pushed_authorization_requests": True}},
            "pushed_authorization": {"path": "par",
                                     "class": "idpyoidc.server.oauth2.pushed_authorization.PushedAuthorization",
                                     "kwargs": {"client_authn_method": AUTHN_METHODS, "ttl": 60}},
            "token": {"path": "token", "class": "idpyoidc.server.oidc.token.Token",
                      "kwargs": {"client_authn_method": AUTHN_METHODS}},
            "userinfo": {"path": "userinfo", "class": "idpyoidc.server.oidc.userinfo.UserInfo",
                         "kwargs": {"client_authn_method": ["bearer_header"]}},
            "revocation": {"path": "revoke", "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                           "kwargs": {"client_authn_method": AUTHN_METHODS}},
        },
        "add_ons": {
            "pkce": {"function": "idpyoidc.server.oauth2.add_on.pkce.add_support",
                     "kwargs": {"essential": True, "code_challenge_method": "S256"}},
        },
        "authentication": {"anon": {"acr": "urn:oasis:names:tc:SAML:2.0:ac:classes:InternetProtocolPassword",
                                    "class": "idpyoidc.server.user_authn.user.NoAuthn",
                                    "kwargs": {"user": user}}},
        "userinfo": {"class": "idpyoidc.server.user_info.UserInfo",
                     "kwargs": {"db": {user: {"sub": user, "name": "Ada Idpy", "email": "ada@example.org",
                                              "email_verified": True}}}},
        "authz": {"class": "idpyoidc.server.authz.AuthzHandling",
                  "kwargs": {"grant_config": {
                      "usage_rules": {
                          "authorization_code": {"supports_minting": ["access_token", "refresh_token", "id_token"],
                                                 "max_usage": 1},
                          "access_token": {},
                          "refresh_token": {"supports_minting": ["access_token", "refresh_token", "id_token"]}},
                      "expires_in": 43200}}},
        "claims_interface": {"class": "idpyoidc.server.session.claims.ClaimsInterface", "kwargs": {}},
        "session_params": {"encrypter": {"kwargs": {"keys": {"key_defs": [
            {"type": "OCT", "use": ["enc"], "kid": "password"},
            {"type": "OCT", "use": ["enc"], "kid": "salt"}]}, "iterations": 1}}},
        "template_dir": "templates",
    }
    if dpop:  # DPoP (RFC 9449) required at the token and userinfo endpoints (`Authorization: DPoP` there)
        conf["endpoint"]["userinfo"]["kwargs"]["client_authn_method"] = ["dpop"]
        conf["add_ons"]["dpop"] = {
            "function": "idpyoidc.server.oauth2.add_on.dpop.add_support",
            "kwargs": {"dpop_signing_alg_values_supported": ["ES256"], "dpop_endpoints": ["token", "userinfo"]}}
    return conf


def strict_dpop_proof_check(request, client_id, context, auth_info, **kwargs):
    """idpyoidc 5.0's DPoP check at the token and userinfo endpoints (`dpop.userinfo_post_parse_request`),
    corrected where it departs from RFC 9449: `ath` is the base64url (not hexadecimal) SHA-256 of the access
    token (§4.2), `iat` must be recent (§4.3, 60 s either way here) and each `jti` is accepted once (§11.1).
    Everything else is idpyoidc's own: the proof's signature by its `jwk`, `typ`, `htm`, `htu`."""
    import time as _time
    from hashlib import sha256

    from cryptojwt import as_unicode
    from cryptojwt.jwk.jwk import key_from_jwk_dict
    from idpyoidc.server.oauth2.add_on.dpop import DPoPProof

    headers = (kwargs.get("http_info") or {}).get("headers") or {}
    header = headers.get("dpop", "")
    if not header:
        raise ValueError("Expected DPoP header, none found")
    proof = DPoPProof().verify_header(header)
    if proof is None or proof["typ"] != "dpop+jwt":
        raise ValueError("not a DPoP proof")
    if proof["htu"] != kwargs["http_info"]["url"].split("?")[0] or proof["htm"] != kwargs["http_info"]["method"]:
        raise ValueError("htu or htm in DPoP does not match the request")
    if abs(int(proof["iat"]) - int(_time.time())) > 60:
        raise ValueError("DPoP proof iat is not recent")
    seen = context.__dict__.setdefault("_dpop_jtis", set())
    if proof["jti"] in seen:
        raise ValueError("DPoP proof jti replayed")
    seen.add(proof["jti"])
    token = auth_info.get("token") if auth_info else None
    if token:
        expected = base64.urlsafe_b64encode(sha256(token.encode()).digest()).rstrip(b"=").decode()
        if proof.get("ath") != expected:
            raise ValueError("'ath' in DPoP does not match the token hash")
    if not proof.key:
        proof.key = key_from_jwk_dict(proof["jwk"])
    request["dpop_jkt"] = as_unicode(proof.key.thumbprint("SHA-256"))
    return request


def unverified_claims(assertion: str) -> dict:
    try:
        return json.loads(base64.urlsafe_b64decode(assertion.split(".")[1] + "==="))
    except Exception:
        return {}


class OP:
    def __init__(self, port: int, client_id: str, client_jwks: dict, redirect_uri: str, user: str, dpop: bool):
        self.issuer = f"http://127.0.0.1:{port}"
        if dpop:  # the add-on installs this module attribute as its check: the corrected one (see above)
            import idpyoidc.server.oauth2.add_on.dpop as dpop_add_on
            dpop_add_on.userinfo_post_parse_request = strict_dpop_proof_check
        self.server = Server(OPConfiguration(conf=configuration(self.issuer, user, dpop), base_path="", domain="127.0.0.1",
                                             port=port))
        context = self.server.context
        context.cdb[client_id] = {
            "client_id": client_id, "redirect_uris": [(redirect_uri, {})], "response_types_supported": ["code"],
            "token_endpoint_auth_method": "private_key_jwt", "allowed_scopes": ["openid", "email", "profile", "offline_access"],
            "client_salt": "salted", "grant_types_supported": ["authorization_code", "refresh_token"]}
        context.keyjar.import_jwks(client_jwks, client_id)
        # What idpyoidc 5.0 does but its discovery document does not say (it publishes the document before the
        # add-ons run): `iss` in every authorization response (RFC 9207), DPoP with ES256, PKCE S256 only, and
        # pushed requests required (enforced by this wrapper at /authorization).
        context.add_on["pkce"]["code_challenge_methods"] = {
            "S256": context.add_on["pkce"]["code_challenge_methods"]["S256"]}
        context.provider_info.update({
            "authorization_response_iss_parameter_supported": True,
            "code_challenge_methods_supported": ["S256"],
            "require_pushed_authorization_requests": True,
        })
        if dpop:
            context.provider_info["dpop_signing_alg_values_supported"] = context.add_on["dpop"]["algs_supported"]
        # RFC 9126 §2: the pushed authorization request endpoint MUST accept the issuer, the token endpoint URL
        # and its own URL as a client assertion's audience. idpyoidc 5.0 accepts only each endpoint's own URL
        # (its `allowed_targets`), so an assertion addressed to the token endpoint, as RFC 7523 §3 and OpenID
        # Connect Core §9 suggest, is refused at PAR and at revocation. Corrected here, per endpoint.
        for name in ("pushed_authorization", "token_revocation"):
            endpoint = self.server.get_endpoint(name)
            endpoint.allowed_targets = [endpoint.name, "", "token"]
        self.log: list[dict] = []
        self.lock = threading.Lock()

    def endpoint_for(self, path: str):
        names = {"/.well-known/openid-configuration": "provider_config", "/authorization": "authorization",
                 "/par": "pushed_authorization", "/token": "token", "/userinfo": "userinfo", "/revoke": "token_revocation"}
        name = names.get(path)
        return self.server.get_endpoint(name) if name else None

    def handle(self, method: str, url: str, path: str, headers: dict, query: str, body: str):
        """(status, headers, body) for one request to an idpyoidc endpoint."""
        endpoint = self.endpoint_for(path)
        if endpoint is None:
            return 404, {"Content-Type": "application/json"}, json.dumps({"error": "not_found"})
        http_info = {"headers": {k.lower(): v for k, v in headers.items() if k.lower() not in ("cookie",)},
                     "method": method, "url": url, "cookie": []}
        form = {k: v[0] for k, v in parse_qs(body if method == "POST" else query).items()}
        if endpoint.name == "authorization":
            if "request_uri" not in form:
                return 400, {"Content-Type": "application/json"}, json.dumps(
                    {"error": "invalid_request", "error_description": "pushed authorization requests are required"})
            # RFC 9126 §4: the redirect carries only `client_id` and `request_uri`. idpyoidc 5.0 checks the
            # query against OpenID Connect's rules (`response_type`, `scope`, `redirect_uri` present; `prompt`
            # holding `consent` with `offline_access`) before it reads the pushed request, so the query is
            # completed from that request (an unknown `request_uri` is left to idpyoidc to refuse).
            pushed = self.server.context.par_db.get(form["request_uri"])
            if pushed is not None:
                for name, value in pushed.items():
                    if name not in form and isinstance(value, (str, list)):
                        form[name] = " ".join(value) if isinstance(value, list) else value
        record = {"endpoint": endpoint.name, "grant_type": form.get("grant_type"),
                  "assertion": unverified_claims(form.get("client_assertion", "")),
                  "dpop": "dpop" in http_info["headers"], "dpop_jkt": form.get("dpop_jkt"),
                  "authorization_scheme": (headers.get("Authorization") or " ").split(" ")[0]}
        try:
            request = endpoint.parse_request(form, http_info=http_info)
        except (ClientAuthenticationError, UnAuthorizedClient) as error:
            traceback.print_exc()
            return self.answer(record, 401, {"error": "invalid_client", "error_description": str(error)})
        except Exception as error:
            traceback.print_exc()
            return self.answer(record, 400, {"error": "invalid_request", "error_description": str(error)})
        if isinstance(request, ResponseMessage) and "error" in request:
            print(f"{endpoint.name}: refused {request.to_dict()}", file=sys.stderr, flush=True)
            status = 401 if request["error"] in ("invalid_client", "unauthorized_client") else 400
            return self.answer(record, status, request.to_dict())
        try:
            if isinstance(endpoint, Token):
                args = endpoint.process_request(AccessTokenRequest(**request), http_info=http_info)
            else:
                args = endpoint.process_request(request, http_info=http_info)
        except Exception as error:
            traceback.print_exc()
            return self.answer(record, 400, {"error": "invalid_request", "error_description": str(error)})
        if isinstance(args, ResponseMessage) and "error" in args:
            return self.answer(record, 400, args.to_dict())
        if "http_response" in args:
            response = args["http_response"]
            if isinstance(response, dict):
                status = 201 if endpoint.name == "pushed_authorization" else 200
                return self.answer(record, status, response)
            return self.answer(record, 200, response)
        info = endpoint.do_response(request=request, **args)
        status = info.get("response_code", 200)
        headers_out = dict(info.get("http_headers", []))
        if "error" in args:
            status = 400
        if (info.get("response_placement") or endpoint.response_placement) == "url":
            headers_out["Location"] = info["response"]
            record["status"] = 302
            self.remember(record)
            return 302, headers_out, ""
        if isinstance(info["response"], dict):
            return self.answer(record, status, info["response"])
        try:
            answered = json.loads(info["response"])
        except (TypeError, ValueError):
            answered = None
        if isinstance(answered, dict) and "token_type" in answered:
            record["token_type"] = answered["token_type"]
            record["cnf"] = unverified_claims(answered.get("access_token", "")).get("cnf")
        record["status"] = status
        self.remember(record)
        return status, headers_out or {"Content-Type": "application/json"}, info["response"]

    def answer(self, record: dict, status: int, body):
        record["status"] = status
        if isinstance(body, dict) and "token_type" in body:
            record["token_type"] = body["token_type"]
            # The key the access token is bound to (RFC 9449 §6: `cnf.jkt` of a JWT access token).
            record["cnf"] = unverified_claims(body.get("access_token", "")).get("cnf")
        self.remember(record)
        text = body if isinstance(body, str) else json.dumps(body)
        return status, {"Content-Type": "application/json", "Cache-Control": "no-store"}, text

    def remember(self, record: dict) -> None:
        if record.get("endpoint") in ("token", "pushed_authorization", "token_revocation", "userinfo"):
            with self.lock:
                self.log.append(record)


def serve(op: OP, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def respond(self, status: int, headers: dict, body: str):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def dispatch(self, method: str):
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length", "0") or "0")
            body = self.rfile.read(length).decode() if length else ""
            if url.path == "/_test/log":
                with op.lock:
                    return self.respond(200, {"Content-Type": "application/json"}, json.dumps(op.log))
            if url.path == "/_test/expire-par" and method == "POST":
                op.server.context.par_db.clear()
                return self.respond(204, {}, "")
            if url.path == "/jwks":
                return self.respond(200, {"Content-Type": "application/json"},
                                    json.dumps(op.server.context.keyjar.export_jwks()))
            full_url = op.issuer + url.path
            status, headers, text = op.handle(method, full_url, url.path, dict(self.headers.items()), url.query,
                                              body)
            self.respond(status, headers, text)

        def do_GET(self):  # noqa: N802
            self.dispatch("GET")

        def do_POST(self):  # noqa: N802
            self.dispatch("POST")

    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    return httpd


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-jwks", required=True)
    parser.add_argument("--redirect-uri", required=True)
    parser.add_argument("--user", default="ada")
    parser.add_argument("--dpop", action="store_true", help="require DPoP proofs at the token and userinfo endpoints")
    arguments = parser.parse_args()
    # idpyoidc says why it refused a client (or a request) only in its log: keep it, for the test's diagnostics.
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    with open(arguments.client_jwks) as handle:
        jwks = json.load(handle)
    op = OP(arguments.port, arguments.client_id, jwks, arguments.redirect_uri, arguments.user, arguments.dpop)
    httpd = serve(op, arguments.port)
    print(f"READY {op.issuer}", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
