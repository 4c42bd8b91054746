"""The OpenID Foundation conformance suite's relying-party (client) test modules, replicated as black-box tests
of `authflow serve` with `type: oidc`.

The suite (https://github.com/openid-certification/conformance-suite) tests a relying party by playing its
OpenID Provider and misbehaving in one way per test module; the module passes when the relying party refuses
(shows an error and calls no further endpoint) or, for the modules that check interoperability, signs in.
Here `conformance_op.Provider` plays that provider, each test below injects one module's misbehaviour,
drives the sign-in with plain HTTP, and asserts the suite's verdict: refused with the typed error AuthFlow
documents (docs/errors.md), no session, and, where the suite checks it, no later call to the provider; or
signed in. Each test is named after the module's id and cites the module's source.

Plans covered: OpenID Connect Core Basic RP (`oidcc-client-basic-certification-test-plan`), Config RP
(`oidcc-client-config-certification-test-plan`), the extra modules of `oidcc-client-test-plan` that apply to
the code flow, FAPI 2.0 Security Profile Final RP (`fapi2-security-profile-final-client-test-plan`, with PAR,
`private_key_jwt` and RFC 9207), and the Back-Channel and RP-Initiated Logout RP plans (basic).
docs/conformance.md has the table, the deviations, the modules that do not apply, and why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwcrypto import jwk

import authflow_harness as harness
from conformance_op import Faults, Provider

SUITE = "https://github.com/openid-certification/conformance-suite/blob/master/src/main/java/net/openid/conformance"
OIDCC = f"{SUITE}/openid/client"
FAPI2 = f"{SUITE}/fapi2spfinal"
NAME = "op"  # the provider's name in providers.yaml


# ---------------------------------------------------------------------------------------------
# The relying party and the sign-in
# ---------------------------------------------------------------------------------------------


@dataclass
class Setup:
    """Which plan's relying party configuration a module runs with."""

    fapi: bool = False  # FAPI 2.0 (`profile: fapi2`): PAR, private_key_jwt, DPoP, RFC 9207 `iss`, PKCE S256


def client_key(directory) -> tuple[str, jwk.JWK]:
    """A fresh EC P-256 client key: its PKCS#8 PEM file (for `private_key_file`) and its public JWK."""
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    path = directory / "client-key.pem"
    path.write_bytes(pem)
    path.chmod(0o600)
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo)
    return str(path), jwk.JWK.from_pem(public)


class Stand:
    """One provider and one `authflow serve` configured as that plan's relying party."""

    def __init__(self, servers, setup: Setup, faults: Faults, extra: str = ""):
        directory = servers.directory()
        if setup.fapi:
            key_file, public = client_key(directory)
            self.provider = Provider(client_public_key=public, par=True, iss_parameter=True,
                                     auth_methods=("private_key_jwt",), dpop=True)
            client = (f"    client_auth: private_key_jwt\n    private_key_file: {key_file}\n"
                      "    profile: fapi2\n")
        else:
            self.provider = Provider()
            client = (f"    client_secret: {self.provider.client_secret}\n"
                      "    client_auth: client_secret_basic\n")
        self.provider.faults = faults
        block = (f"  {NAME}:\n    type: oidc\n    issuer: {self.provider.issuer}\n"
                 f"    client_id: {self.provider.client_id}\n{client}"
                 "    scopes: [openid, email, profile]\n" + extra)
        port = harness.free_port()
        self.config = harness.write_config(directory, port=port, providers=(), extra_providers=block)
        self.config.chmod(0o600)
        self.app = None
        self.start_error: Exception | None = None
        try:
            self.app = servers.start(self.config, sandbox=False)
        except harness.ServerError as error:
            self.start_error = error

    def stop(self):
        self.provider.stop()


@dataclass
class Attempt:
    browser: harness.Browser
    start: object  # the app's answer to the login
    authorize_url: str | None = None
    provider_answer: object = None
    result: object = None  # the app's answer to the callback


def sign_in(stand: Stand) -> Attempt:
    """The login at the app, the provider's authorization endpoint (which answers at once), the callback."""
    assert stand.app is not None, f"authflow serve did not start: {stand.start_error}"
    browser = stand.app.browser()
    attempt = Attempt(browser, browser.begin(NAME))
    location = attempt.start.headers.get("Location", "")
    if attempt.start.status_code != 302 or not location.startswith(stand.provider.issuer + "/authorize"):
        return attempt
    attempt.authorize_url = location
    attempt.provider_answer = browser.get(location, initiator=browser.app)
    assert attempt.provider_answer.status_code == 302, (
        f"the provider refused the authorization request: {attempt.provider_answer.text[:300]} "
        f"{stand.provider.refusals}")
    callback = urljoin(location, attempt.provider_answer.headers["Location"])
    assert callback.startswith(browser.app + f"/auth/{NAME}/callback?"), callback
    attempt.result = browser.get(callback, initiator=stand.provider.issuer)
    return attempt


def expect_signed_in(stand: Stand, attempt: Attempt) -> dict:
    assert attempt.result is not None, (
        f"the sign-in did not reach the provider: {attempt.start.status_code} {attempt.start.text[:300]}")
    harness.expect_redirect(attempt.result, "/", context=f"callback; provider refusals {stand.provider.refusals}")
    session = attempt.browser.session_info()
    assert session.status_code == 200, session.text[:300]
    body = session.json()
    assert body["provider"] == NAME and body["subject"] == stand.provider.subject
    return body


def expect_refused(attempt: Attempt, code, *, mentions: tuple[str, ...] = ()) -> dict:
    """The callback refused with `code` (a JSON error naming what was expected and found), no session."""
    assert attempt.result is not None, (
        f"the sign-in did not reach the callback: {attempt.start.status_code} {attempt.start.text[:300]}")
    body = harness.expect_error(attempt.result, code, statuses=(400, 401, 403, 502), context="callback")
    for word in mentions:
        assert word in body["message"], f"expected {word!r} in the message {body['message']!r}"
    assert attempt.browser.session_info().status_code == 401
    return body


# ---------------------------------------------------------------------------------------------
# The modules
# ---------------------------------------------------------------------------------------------


@dataclass
class Module:
    """One conformance-suite test module: its id, its source (relative to the suite's package), what it
    injects, and the verdict the suite expects."""

    id: str
    source: str
    injects: str
    faults: Callable[[], Faults] = Faults
    setup: Setup = field(default_factory=Setup)
    #: None: the relying party must sign in; else the error code AuthFlow must refuse with
    refusal: str | None = None
    #: words the refusal's message must contain (the JOSE check that failed, the claim)
    mentions: tuple[str, ...] = ()
    #: provider endpoints the relying party must not call once it was given the faulty response
    never_calls: tuple[str, ...] = ()
    #: further checks on the provider and the session after the verdict
    check: Callable[[Stand, Attempt], None] | None = None
    #: a provider and relying party of its own (the fault concerns keys the relying party caches);
    #: otherwise the module shares its plan's stand with the other modules of that plan
    fresh: bool = False


def claims_with(**changes) -> Callable[[dict], dict]:
    def change(claims: dict) -> dict:
        claims = dict(claims)
        for name, value in changes.items():
            if value is REMOVE:
                claims.pop(name, None)
            else:
                claims[name] = value(claims) if callable(value) else value
        return claims
    return change


REMOVE = object()


def check_code_flow_requests(stand: Stand, attempt: Attempt) -> None:
    """What the suite's provider checks of every request of a code-flow client (`AbstractOIDCCClientTest`):
    the authorization request (`openid` scope, `response_type=code`, the registered redirect URI, `state`,
    `nonce`, PKCE S256), the token request (`authorization_code` grant, the same redirect URI, the verifier),
    and userinfo with the access token in the header."""
    request = {k: v[0] for k, v in parse_qs(urlsplit(attempt.authorize_url).query).items()}
    assert request["response_type"] == "code" and "openid" in request["scope"].split()
    assert request["redirect_uri"] == attempt.browser.app + f"/auth/{NAME}/callback"
    assert request["state"] and request["nonce"] and request["code_challenge_method"] == "S256"
    token = next(c for c in stand.provider.calls if c.path == "/token")
    assert token.form["grant_type"] == "authorization_code"
    assert token.form["redirect_uri"] == request["redirect_uri"] and token.form["code_verifier"]
    check_userinfo_bearer(stand, attempt)


def check_basic_auth(stand: Stand, attempt: Attempt) -> None:
    assert stand.provider.client_auth_seen == ["client_secret_basic"]
    token_call = next(c for c in stand.provider.calls if c.path == "/token")
    assert token_call.headers["authorization"].startswith("Basic ")
    assert "client_secret" not in token_call.form


def check_scopes(stand: Stand, attempt: Attempt) -> None:
    scope = parse_qs(urlsplit(attempt.authorize_url).query)["scope"][0].split()
    assert "openid" in scope and {"email", "profile"} <= set(scope), scope
    session = attempt.browser.session_info().json()
    assert session["email"] == "conformance@example.com" and session["email_verified"] is True


def check_userinfo_bearer(stand: Stand, attempt: Attempt) -> None:
    calls = [c for c in stand.provider.calls if c.path == "/userinfo"]
    assert len(calls) == 1
    assert calls[0].headers["authorization"].startswith("Bearer ")
    assert calls[0].query == {} and calls[0].form == {}


def check_jwks_fetched(stand: Stand, attempt: Attempt) -> None:
    assert stand.provider.paths("GET").count("/jwks") >= 1
    assert stand.provider.called("/.well-known/openid-configuration")


def check_fapi_request(stand: Stand, attempt: Attempt) -> None:
    """PAR: the pushed request holds the whole authorization request (`openid`, `code`, the redirect URI,
    `state`, `nonce`, PKCE S256) and the redirect only `client_id` and `request_uri`; every request
    authenticated with `private_key_jwt` (a fresh `jti` each, which the provider checks) whose `aud` is the
    issuer as a string (the suite's `ValidateClientAssertionAudClaimIsIssuerAsString`); DPoP at the token and
    userinfo endpoints with the key the pushed request named."""
    query = parse_qs(urlsplit(attempt.authorize_url).query)
    assert set(query) == {"client_id", "request_uri"}, query
    pushed = next(c for c in stand.provider.calls if c.path == "/par").form
    assert pushed["code_challenge_method"] == "S256" and len(pushed["code_challenge"]) == 43
    assert pushed["response_type"] == "code" and "openid" in pushed["scope"].split()
    assert pushed["redirect_uri"] == attempt.browser.app + f"/auth/{NAME}/callback"
    assert pushed["state"] and pushed["nonce"] and "request_uri" not in pushed and "client_secret" not in pushed
    assert set(stand.provider.client_auth_seen) == {"private_key_jwt"}
    assert stand.provider.paths().count("/par") == 1
    audiences = stand.provider.assertion_audiences  # a nonce challenge at the token endpoint: a second one there
    assert [endpoint for endpoint, _ in audiences][:2] == ["par", "token"] and len(audiences) <= 3, audiences
    assert all(audience == stand.provider.issuer for _, audience in audiences), audiences
    assert pushed["dpop_jkt"]
    check_dpop(stand, attempt)


FAPI = Setup(fapi=True)


def iss_removed(params: dict) -> dict:
    return {k: v for k, v in params.items() if k != "iss"}


OIDCC_BASIC = [
    Module("oidcc-client-test", "openid/client/OIDCCClientTest.java",
           "nothing: a well-behaved provider (code flow, client_secret_basic)",
           check=check_code_flow_requests),
    Module("oidcc-client-test-invalid-iss", "openid/client/OIDCCClientTestInvalidIssuerInIdToken.java",
           "an id_token whose `iss` is not the issuer",
           faults=lambda: Faults(id_token_claims=claims_with(iss=lambda c: c["iss"] + "/invalid")),
           refusal="id_token_invalid", mentions=("iss",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-missing-sub", "openid/client/OIDCCClientTestMissingSubInIdToken.java",
           "an id_token without `sub`",
           faults=lambda: Faults(id_token_claims=claims_with(sub=REMOVE)),
           refusal="id_token_invalid", mentions=("sub",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-invalid-aud", "openid/client/OIDCCClientTestInvalidAudInIdToken.java",
           "an id_token whose `aud` is another client",
           faults=lambda: Faults(id_token_claims=claims_with(aud=lambda c: c["aud"] + "-invalid")),
           refusal="id_token_invalid", mentions=("aud",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-missing-iat", "openid/client/OIDCCClientTestMissingIatInIdToken.java",
           "an id_token without `iat`",
           faults=lambda: Faults(id_token_claims=claims_with(iat=REMOVE)),
           refusal="id_token_invalid", mentions=("iat",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-kid-absent-single-jwks", "openid/client/OIDCCClientTestKidAbsentSingleJwks.java",
           "an id_token header without `kid`; the JWKS holds that one key (without `kid`)",
           fresh=True, faults=lambda: Faults(jwks="single", kid_in_header=False)),
    Module("oidcc-client-test-kid-absent-multiple-jwks",
           "openid/client/OIDCCClientTestKidAbsentMultipleMatchingKeysInJwks.java",
           "an RS256 id_token without `kid`; the JWKS holds two RSA keys, neither with a `kid` (the suite "
           "accepts either verdict: refuse, or try each key)",
           fresh=True, faults=lambda: Faults(signing="RS256", jwks="several-without-kid", kid_in_header=False),
           refusal="id_token_invalid", mentions=("kid",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-idtoken-sig-rs256", "openid/client/OIDCCClientTestIdTokenSignedUsingRS256.java",
           "an id_token signed with RS256",
           faults=lambda: Faults(signing="RS256")),
    Module("oidcc-client-test-idtoken-sig-none", "openid/client/OIDCCClientTestIdTokenSigAlgNone.java",
           "an unsigned id_token (`alg: none`) from the token endpoint; the suite expects a client registered "
           "for `none` to accept it. AuthFlow never registers for `none` and refuses it (deviation)",
           faults=lambda: Faults(signing="none"),
           refusal="id_token_invalid", mentions=("none",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-invalid-sig-rs256",
           "openid/client/OIDCCClientTestInvalidIdTokenSignatureWithRS256.java",
           "an RS256 id_token whose signature does not verify",
           faults=lambda: Faults(signing="RS256", corrupt_signature=True),
           refusal="id_token_invalid", mentions=("signature",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-userinfo-invalid-sub",
           "openid/client/OIDCCClientTestInvalidSubInUserinfoResponse.java",
           "a userinfo response whose `sub` differs from the id_token's",
           faults=lambda: Faults(userinfo=claims_with(sub="someone-else")),
           refusal="userinfo_subject_mismatch"),
    Module("oidcc-client-test-nonce-invalid", "openid/client/OIDCCClientTestNonceInvalid.java",
           "an id_token whose `nonce` is not the one the client sent",
           faults=lambda: Faults(id_token_claims=claims_with(nonce="not-the-nonce")),
           refusal="id_token_invalid", mentions=("nonce",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-scope-userinfo-claims", "openid/client/OIDCCClientTestScopeUserInfoClaims.java",
           "nothing; the client must ask for claims with `profile`/`email` scopes and use userinfo",
           check=check_scopes),
    Module("oidcc-client-test-client-secret-basic", "openid/client/OIDCCClientTestClientSecretBasic.java",
           "nothing; the token endpoint accepts only `client_secret_basic`",
           check=check_basic_auth),
]

OIDCC_EXTRA = [
    Module("oidcc-client-test-missing-aud", "openid/client/OIDCCClientTestMissingAudInIdToken.java",
           "an id_token without `aud`",
           faults=lambda: Faults(id_token_claims=claims_with(aud=REMOVE)),
           refusal="id_token_invalid", mentions=("aud",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-invalid-sig-es256",
           "openid/client/OIDCCClientTestInvalidIdTokenSignatureWithES256.java",
           "an ES256 id_token whose signature does not verify",
           faults=lambda: Faults(signing="ES256", corrupt_signature=True),
           refusal="id_token_invalid", mentions=("signature",), never_calls=("/userinfo",)),
    Module("oidcc-client-test-invalid-sig-hs256",
           "openid/client/OIDCCClientTestInvalidIdTokenSignatureWithHS256.java",
           "an HS256 id_token (keyed with the client secret) whose signature does not verify",
           faults=lambda: Faults(signing="HS256", corrupt_signature=True),
           refusal="id_token_invalid", never_calls=("/userinfo",)),
    Module("oidcc-client-test-ignores-unparseable-key-in-jwks",
           "openid/client/OIDCCClientTestIgnoresUnparseableKeyInJwks.java",
           "the JWKS holds, beside the signing key, a key of type `AKP` with an unknown parameter set and one of "
           "a made-up type, each with its own `kid`",
           fresh=True, faults=lambda: Faults(jwks="with-unusable")),
    Module("oidcc-client-test-userinfo-bearer-header", "openid/client/OIDCCClientTestUserinfoBearerHeader.java",
           "nothing; the userinfo request must carry the access token in `Authorization: Bearer`",
           check=check_userinfo_bearer),
]

OIDCC_CONFIG = [
    Module("oidcc-client-test-discovery-openid-config",
           "openid/client/config/OIDCCClientTestDiscoveryOpenIDConfiguration.java",
           "nothing; the client must find the endpoints through discovery", check=check_jwks_fetched, fresh=True),
    Module("oidcc-client-test-discovery-jwks-uri-keys",
           "openid/client/config/OIDCCClientTestDiscoveryJwksUriKeys.java",
           "nothing; the client must verify the id_token with the keys at discovery's `jwks_uri`",
           check=check_jwks_fetched, fresh=True),
    Module("oidcc-client-test-signing-key-rotation-just-before-signing",
           "openid/client/config/OIDCCClientTestSigningKeyRotationJustBeforeSigning.java",
           "new signing keys (new `kid`s) published right before the id_token is signed",
           fresh=True, faults=lambda: Faults(rotate_before_signing=True)),
]

FAPI2_SP = [
    Module("fapi2-security-profile-final-client-test-happy-path",
           "fapi2spfinal/FAPI2SPFinalClientTestHappyPath.java",
           "nothing: PAR required, `private_key_jwt`, DPoP with server nonces, `iss` in the authorization "
           "response, PKCE S256",
           setup=FAPI, check=check_fapi_request),
    Module("fapi2-security-profile-final-client-test-invalid-iss", "fapi2spfinal/FAPI2SPFinalClientTestInvalidIss.java",
           "an id_token whose `iss` is not the issuer",
           faults=lambda: Faults(id_token_claims=claims_with(iss="https://invalid.example")),
           setup=FAPI, refusal="id_token_invalid", mentions=("iss",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-aud", "fapi2spfinal/FAPI2SPFinalClientTestInvalidAud.java",
           "an id_token whose `aud` is another client",
           faults=lambda: Faults(id_token_claims=claims_with(aud="invalid-client")),
           setup=FAPI, refusal="id_token_invalid", mentions=("aud",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-secondary-aud",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidSecondaryAud.java",
           "an id_token whose `aud` lists the client and an untrusted second client (no `azp`)",
           faults=lambda: Faults(id_token_claims=claims_with(aud=lambda c: [c["aud"], "untrusted-client"])),
           setup=FAPI, refusal="id_token_invalid", mentions=("aud",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-null-alg",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidNullAlg.java",
           "an unsigned id_token (`alg: none`)",
           faults=lambda: Faults(signing="none"),
           setup=FAPI, refusal="id_token_invalid", mentions=("none",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-alternate-alg",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidAlternateAlg.java",
           "an id_token signed with RS256, which FAPI 2.0 does not allow (the provider advertises RS256 beside "
           "ES256, PS256 and EdDSA, so only `profile: fapi2` can refuse it)",
           faults=lambda: Faults(signing="RS256"),
           setup=FAPI, refusal="id_token_invalid", mentions=("RS256",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-expired-exp",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidExpiredExp.java",
           "an id_token that expired (`exp` in the past)",
           faults=lambda: Faults(id_token_claims=claims_with(exp=lambda c: c["iat"] - 3600, iat=lambda c: c["iat"] - 7200)),
           setup=FAPI, refusal="id_token_invalid", mentions=("exp",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-missing-exp",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidMissingExp.java",
           "an id_token without `exp`",
           faults=lambda: Faults(id_token_claims=claims_with(exp=REMOVE)),
           setup=FAPI, refusal="id_token_invalid", mentions=("exp",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-missing-aud",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidMissingAud.java",
           "an id_token without `aud`",
           faults=lambda: Faults(id_token_claims=claims_with(aud=REMOVE)),
           setup=FAPI, refusal="id_token_invalid", mentions=("aud",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-missing-iss",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidMissingIss.java",
           "an id_token without `iss`",
           faults=lambda: Faults(id_token_claims=claims_with(iss=REMOVE)),
           setup=FAPI, refusal="id_token_invalid", mentions=("iss",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-valid-aud-as-array",
           "fapi2spfinal/FAPI2SPFinalClientTestValidAudAsArray.java",
           "an id_token whose `aud` is an array holding only the client",
           faults=lambda: Faults(id_token_claims=claims_with(aud=lambda c: [c["aud"]])),
           setup=FAPI),
    Module("fapi2-security-profile-final-client-test-invalid-nonce",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidNonce.java",
           "an id_token whose `nonce` is not the one the client sent",
           faults=lambda: Faults(id_token_claims=claims_with(nonce="not-the-nonce")),
           setup=FAPI, refusal="id_token_invalid", mentions=("nonce",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-missing-nonce",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidMissingNonce.java",
           "an id_token without the `nonce` the client sent",
           faults=lambda: Faults(id_token_claims=claims_with(nonce=REMOVE)),
           setup=FAPI, refusal="id_token_invalid", mentions=("nonce",), never_calls=("/userinfo",)),
    Module("fapi2-security-profile-final-client-test-invalid-authorization-response-iss",
           "fapi2spfinal/FAPI2SPFinalClientTestInvalidAuthorizationResponseIss.java",
           "an authorization response whose `iss` (RFC 9207) is not the issuer",
           faults=lambda: Faults(authorization_response=claims_with(iss="https://invalid.example")),
           setup=FAPI, refusal="issuer_mismatch", never_calls=("/token", "/userinfo")),
    Module("fapi2-security-profile-final-client-test-remove-authorization-response-iss",
           "fapi2spfinal/FAPI2SPFinalClientTestRemoveAuthorizationResponseIss.java",
           "an authorization response without `iss` from an issuer that advertises "
           "`authorization_response_iss_parameter_supported`",
           faults=lambda: Faults(authorization_response=iss_removed),
           setup=FAPI, refusal="issuer_mismatch", never_calls=("/token", "/userinfo")),
    Module("fapi2-security-profile-final-client-test-ensure-authorization-response-with-invalid-state-fails",
           "fapi2spfinal/FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidStateFails.java",
           "an authorization response whose `state` is not the one the client sent",
           faults=lambda: Faults(authorization_response=claims_with(state=lambda p: p["state"][::-1] + "x")),
           setup=FAPI, refusal="browser_binding_mismatch", never_calls=("/token", "/userinfo")),
    Module("fapi2-security-profile-final-client-test-ensure-authorization-response-with-invalid-missing-state-fails",
           "fapi2spfinal/FAPI2SPFinalClientTestEnsureAuthorizationResponseWithInvalidMissingStateFails.java",
           "an authorization response without the `state` the client sent",
           faults=lambda: Faults(authorization_response=claims_with(state=REMOVE)),
           setup=FAPI, refusal="invalid_state", never_calls=("/token", "/userinfo")),
    Module("fapi2-security-profile-final-client-test-token-endpoint-response-without-expires_in",
           "fapi2spfinal/FAPI2SPFinalClientTestTokenEndpointResponseWithoutExpiresIn.java",
           "a token response without `expires_in`",
           faults=lambda: Faults(token_response=claims_with(expires_in=REMOVE)), setup=FAPI),
    Module("fapi2-security-profile-final-client-test-token-type-case-insensitivity",
           "fapi2spfinal/FAPI2SPFinalClientTestTokenTypeCaseInsenstivity.java",
           "a token response whose `token_type` is `dPoP` (DPoP with the case inverted)",
           faults=lambda: Faults(token_response=claims_with(token_type="dPoP")), setup=FAPI),
]

MODULES = OIDCC_BASIC + OIDCC_EXTRA + OIDCC_CONFIG + FAPI2_SP


@pytest.fixture(scope="module")
def shared_stands(module_servers):
    """One stand per plan for the modules whose faults leave discovery and keys alone: starting a relying
    party per module would make the file several times slower."""
    stands: dict[bool, Stand] = {}

    def get(setup: Setup) -> Stand:
        if setup.fapi not in stands:
            stands[setup.fapi] = Stand(module_servers, setup, Faults())
        return stands[setup.fapi]
    yield get
    for stand in stands.values():
        stand.stop()


def run_module(servers, shared_stands, module: Module) -> None:
    if module.fresh:
        stand = Stand(servers, module.setup, module.faults())
    else:
        stand = shared_stands(module.setup)
        stand.provider.reset(module.faults())
    try:
        attempt = sign_in(stand)
        if module.refusal is None:
            expect_signed_in(stand, attempt)
        else:
            expect_refused(attempt, module.refusal, mentions=module.mentions)
            for path in module.never_calls:
                assert not stand.provider.called(path), (
                    f"{module.id}: the relying party called {path} after the faulty response: "
                    f"{stand.provider.paths()}")
        if module.check is not None:
            module.check(stand, attempt)
    finally:
        if module.fresh:
            stand.stop()


def _make_test(module: Module):
    def test(servers, shared_stands):
        run_module(servers, shared_stands, module)
    test.__name__ = "test_" + module.id.replace("-", "_")
    test.__doc__ = f"{module.id}: {module.injects}.\n\nSource: {SUITE}/{module.source}"
    return test


for _module in MODULES:
    _test = _make_test(_module)
    globals()[_test.__name__] = _test
del _module, _test


# ---------------------------------------------------------------------------------------------
# Modules with more than one sign-in or a provider that fails before the sign-in
# ---------------------------------------------------------------------------------------------


def test_oidcc_client_test_signing_key_rotation(servers):
    """oidcc-client-test-signing-key-rotation: a sign-in, then new signing keys (new `kid`s), then a second
    sign-in, which the client must verify by fetching the key set again.

    Source: {OIDCC}/config/OIDCCClientTestSigningKeyRotation.java
    """
    stand = Stand(servers, Setup(), Faults())
    try:
        expect_signed_in(stand, sign_in(stand))
        fetched = stand.provider.paths("GET").count("/jwks")
        stand.provider.keys.rotate()
        expect_signed_in(stand, sign_in(stand))
        assert stand.provider.paths("GET").count("/jwks") > fetched
    finally:
        stand.stop()


def discovery_issuer_mismatch(servers, setup: Setup) -> None:
    """The discovery document names another issuer: the client must stop before any authorization request.
    AuthFlow finds out when it starts: `authflow serve` refuses the configuration with `issuer_mismatch`
    (OpenID Connect Discovery §4.3), at the provider's `issuer:` line, and exits 1."""
    faults = Faults(discovery=claims_with(issuer=lambda d: d["issuer"] + "/mismatch"))
    stand = Stand(servers, setup, faults)
    try:
        assert stand.app is None, "authflow serve started with an issuer whose discovery names another"
        report = str(stand.start_error)
        assert "exit 1" in report, report
        assert "failed: issuer_mismatch: expected the discovery document's issuer to equal the configured " \
               f"issuer '{stand.provider.issuer}'" in report, report
        assert stand.provider.paths() == ["/.well-known/openid-configuration"], stand.provider.paths()
    finally:
        stand.stop()


def test_oidcc_client_test_discovery_issuer_mismatch(servers):
    """oidcc-client-test-discovery-issuer-mismatch: discovery's `issuer` differs from the configured issuer.

    Source: {OIDCC}/config/OIDCCClientTestDiscoveryIssuerMismatch.java
    """
    discovery_issuer_mismatch(servers, Setup())


def test_fapi2_security_profile_final_client_test_discovery_issuer_mismatch(servers):
    """fapi2-security-profile-final-client-test-discovery-issuer-mismatch: as the OIDC module, with FAPI 2.0.

    Source: {FAPI2}/FAPI2SPFinalClientTestDiscoveryIssuerMismatch.java
    """
    discovery_issuer_mismatch(servers, FAPI)


for _test in (test_oidcc_client_test_signing_key_rotation, test_oidcc_client_test_discovery_issuer_mismatch,
              test_fapi2_security_profile_final_client_test_discovery_issuer_mismatch):
    _test.__doc__ = _test.__doc__.replace("{OIDCC}", OIDCC).replace("{FAPI2}", FAPI2)
del _test


def test_oidcc_client_test_form_post_error(servers):
    """oidcc-client-test-form-post-error: the client asks with `response_mode=form_post`, `prompt=none` and
    `max_age=0`; the provider answers with a form that posts `error=login_required` back. The client must take
    the posted error and show an error, not a sign-in.

    Source: {OIDCC}/OIDCCClientTestFormPostError.java
    """
    extra = ("    capabilities: {form_post: true}\n"
             "    authorization_params: {prompt: none, max_age: \"0\"}\n")
    stand = Stand(servers, Setup(), Faults(authorization_error="login_required"), extra=extra)
    try:
        browser = stand.app.browser()
        start = browser.begin(NAME)
        authorize_url = start.headers["Location"]
        query = parse_qs(urlsplit(authorize_url).query)
        assert query["response_mode"] == ["form_post"] and query["prompt"] == ["none"] and query["max_age"] == ["0"]
        page = browser.get(authorize_url, initiator=browser.app)
        forms = harness.parse_forms(page.text, page.url)
        assert page.status_code == 200 and len(forms) == 1 and forms[0].field("error") == "login_required"
        callback = harness.Callback("POST", forms[0].action, forms[0].fields(), page_url=page.url,
                                    page_policy=harness.referrer_policy(page))
        result = browser.deliver(callback)
        body = harness.expect_error(result, "provider_error", statuses=(400, 401, 403), context="form_post error")
        assert "login_required" in body["message"], body
        assert browser.session_info().status_code == 401
        assert not stand.provider.called("/token")
    finally:
        stand.stop()


test_oidcc_client_test_form_post_error.__doc__ = test_oidcc_client_test_form_post_error.__doc__.replace(
    "{OIDCC}", OIDCC)


# ---------------------------------------------------------------------------------------------
# RFC 9126 checks the FAPI 2.0 client plan leaves out: a refused or unusable pushed request
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer, case", [
    ((400, {"error": "invalid_request", "error_description": "scope not allowed"}), "error"),
    ((201, {"expires_in": 60}), "no request_uri"),
    ((201, {"request_uri": "urn:ietf:params:oauth:request_uri:x", "expires_in": 0}), "request_uri expired"),
], ids=["par-error", "par-missing-request-uri", "par-request-uri-expired"])
def test_par_response_refused(servers, answer, case):
    """RFC 9126 §2.2-2.3: an error from the pushed authorization request endpoint, an answer without a
    `request_uri`, or one whose lifetime is already over: the login is refused with
    `pushed_authorization_error` and the browser never reaches the authorization endpoint."""
    stand = Stand(servers, FAPI, Faults(par_response=lambda status, body: answer))
    try:
        attempt = sign_in(stand)
        assert attempt.authorize_url is None, case
        body = harness.expect_error(attempt.start, "pushed_authorization_error", statuses=(400, 401, 403, 502),
                                    context=case)
        assert "request_uri:x" not in body["message"]
        assert not stand.provider.called("/authorize")
    finally:
        stand.stop()


# ---------------------------------------------------------------------------------------------
# Logout plans: OpenID Connect Back-Channel Logout and RP-Initiated Logout (basic variants)
# ---------------------------------------------------------------------------------------------

EVENT = "http://schemas.openid.net/event/backchannel-logout"


@dataclass
class LogoutModule:
    id: str
    source: str
    injects: str
    change: Callable[[dict], dict] = lambda claims: claims
    signing: str | None = None
    #: True: the suite expects 200 and the logout; False: 400, and here the session must live on
    accepted: bool = False


BACKCHANNEL = [
    LogoutModule("oidcc-client-test-rp-backchannel-rpinitlogout", "OIDCCClientTestBackChannelLogout.java",
                 "a valid logout token", accepted=True),
    LogoutModule("oidcc-client-test-rp-backchannel-rpinitlogout-alg-none", "OIDCCClientTestBackChannelLogoutAlgNone.java",
                 "an unsigned logout token (`alg: none`)", signing="none"),
    LogoutModule("oidcc-client-test-rp-backchannel-rpinitlogout-no-event", "OIDCCClientTestBackChannelLogoutNoEvent.java",
                 "a logout token without `events`", change=claims_with(events=REMOVE)),
    LogoutModule("oidcc-client-test-rp-backchannel-rpinitlogout-with-nonce",
                 "OIDCCClientTestBackChannelLogoutWithNonce.java",
                 "a logout token with a `nonce`", change=claims_with(nonce="a-nonce")),
    LogoutModule("oidcc-client-test-rp-backchannel-rpinitlogout-wrong-aud", "OIDCCClientTestBackChannelLogoutWrongAud.java",
                 "a logout token for another client (`aud`)", change=claims_with(aud="another-client")),
    LogoutModule("oidcc-client-test-rp-backchannel-rpinitlogout-wrong-event",
                 "OIDCCClientTestBackChannelLogoutWrongEvent.java",
                 "a logout token whose `events` lacks the back-channel logout event",
                 change=claims_with(events={"http://schemas.openid.net/event/not-a-logout": {}})),
    LogoutModule("oidcc-client-test-rp-backchannel-rpinitlogout-wrong-iss",
                 "OIDCCClientTestBackChannelLogoutWrongIssuer.java",
                 "a logout token from another issuer (`iss`)", change=claims_with(iss=lambda c: c["iss"] + "/wrong")),
]


def post_logout_token(stand: Stand, token: str):
    return harness.direct.post(stand.app.app_url + f"/auth/{NAME}/backchannel-logout",
                               data={"logout_token": token}, timeout=harness.HTTP_TIMEOUT)


def run_backchannel(shared_stands, module: LogoutModule) -> None:
    """The suite sends the logout token after an RP-initiated logout, when the session has already ended, and
    checks only the answer (200 or 400, Back-Channel Logout 1.0 §2.8). Here it is sent while the session
    lives, so a refusal also shows that the session survives it."""
    backchannel_on(shared_stands(Setup()), module)


def backchannel_on(stand: Stand, module: LogoutModule) -> None:
    stand.provider.reset(Faults())
    attempt = sign_in(stand)
    expect_signed_in(stand, attempt)
    answer = post_logout_token(stand, stand.provider.logout_token(module.change, module.signing))
    assert answer.headers.get("Cache-Control") == "no-store"
    if module.accepted:
        assert answer.status_code == 200, answer.text[:300]
        assert attempt.browser.session_info().status_code == 401
    else:
        assert answer.status_code == 400, answer.text[:300]
        assert answer.json()["error"] == "invalid_request" and answer.json()["error_description"]
        assert attempt.browser.session_info().status_code == 200


def _make_logout_test(module: LogoutModule):
    def test(shared_stands):
        run_backchannel(shared_stands, module)
    test.__name__ = "test_" + module.id.replace("-", "_")
    test.__doc__ = f"{module.id}: {module.injects}.\n\nSource: {OIDCC}/logout/{module.source}"
    return test


for _module in BACKCHANNEL:
    _test = _make_logout_test(_module)
    globals()[_test.__name__] = _test
del _module, _test


def test_oidcc_client_test_rp_backchannel_rpinitlogout_wrong_alg(servers):
    stand = Stand(servers, Setup(), Faults(), extra="    id_token_signed_response_alg: ES256\n")
    try:
        backchannel_on(stand, LogoutModule(
            "oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg", "OIDCCClientTestBackChannelLogoutWrongAlg.java",
            "a logout token signed with another algorithm than the id_tokens (RS256 where they are ES256), with a key "
            "the issuer publishes", signing="RS256"))
    finally:
        stand.stop()


test_oidcc_client_test_rp_backchannel_rpinitlogout_wrong_alg.__doc__ = (
    "oidcc-client-test-rp-backchannel-rpinitlogout-wrong-alg: a logout token signed with another algorithm than\n"
    "the client's id_tokens (RS256 where they are ES256), with a key the issuer publishes; the suite expects 400.\n"
    "The suite registers the client's id_token algorithm; here `id_token_signed_response_alg: ES256` says it.\n\n"
    f"Source: {OIDCC}/logout/OIDCCClientTestBackChannelLogoutWrongAlg.java")


def rp_initiated_logout(shared_stands, end_session_response) -> tuple[Attempt, dict, object]:
    """Sign in, then `POST /auth/logout` with `provider_logout=1`: the end-session request the client sends,
    and the app's answer to the provider's redirect back (changed by `end_session_response`)."""
    stand = shared_stands(Setup())
    stand.provider.reset(Faults(end_session_response=end_session_response))
    attempt = sign_in(stand)
    expect_signed_in(stand, attempt)
    browser = attempt.browser
    logout = browser.app_post(f"/auth/logout?return_to=/", data={"provider_logout": "1"})
    assert logout.status_code == 303, logout.text[:300]
    end_session_url = logout.headers["Location"]
    assert end_session_url.startswith(stand.provider.issuer + "/logout?"), end_session_url
    request = {k: v[0] for k, v in parse_qs(urlsplit(end_session_url).query).items()}
    assert browser.session_info().status_code == 401  # the local session ends first
    back = browser.get(end_session_url, initiator=browser.app)
    assert back.status_code == 302, back.text[:300]
    returned = urljoin(end_session_url, back.headers["Location"])
    assert returned.startswith(request["post_logout_redirect_uri"]), returned
    return attempt, request, browser.get(returned, initiator=stand.provider.issuer)


def test_oidcc_client_test_rp_init_logout(shared_stands):
    """oidcc-client-test-rp-init-logout: the client ends the session at the provider's end-session endpoint
    (`id_token_hint`, `post_logout_redirect_uri`, `state`) and takes the browser back.

    Source: {OIDCC}/logout/OIDCCClientTestRPInitLogout.java
    """
    _, request, answer = rp_initiated_logout(shared_stands, lambda params: params)
    assert request["id_token_hint"] and request["state"] and request["client_id"]
    harness.expect_redirect(answer, "/", context="post-logout redirect")


def test_oidcc_client_test_rp_init_logout_other_state(shared_stands):
    """oidcc-client-test-rp-init-logout-other-state: the provider sends the browser back with another `state`
    than the client sent; the client must not take it as its own (the session has ended already).

    Source: {OIDCC}/logout/OIDCCClientTestRPInitLogoutInvalidState.java
    """
    _, request, answer = rp_initiated_logout(shared_stands, lambda params: {"state": "other-" + params["state"]})
    assert request["state"]
    assert answer.status_code == 400 and "invalid_logout_state" in answer.text, answer.text[:300]


def test_oidcc_client_test_rp_init_logout_no_state(shared_stands):
    """oidcc-client-test-rp-init-logout-no-state: the client sent a `state`, the provider sends the browser back
    without one; the client must not follow a redirect it cannot tie to its logout.

    Source: {OIDCC}/logout/OIDCCClientTestRPInitLogoutNoState.java
    """
    _, request, answer = rp_initiated_logout(shared_stands, lambda params: {})
    assert request["state"]
    assert answer.status_code == 400 and "invalid_logout_state" in answer.text, answer.text[:300]


for _test in (test_oidcc_client_test_rp_init_logout, test_oidcc_client_test_rp_init_logout_other_state,
              test_oidcc_client_test_rp_init_logout_no_state):
    _test.__doc__ = _test.__doc__.replace("{OIDCC}", OIDCC)
del _test


# ---------------------------------------------------------------------------------------------
# DPoP (RFC 9449): the FAPI 2.0 plan's sender-constraining variant
# ---------------------------------------------------------------------------------------------


def check_dpop(stand: Stand, attempt: Attempt) -> None:
    """Each token and userinfo request carried a proof of the one key the pushed request named (`dpop_jkt`),
    the userinfo request `Authorization: DPoP` and an `ath`."""
    proofs = stand.provider.dpop_proofs
    assert [endpoint for endpoint, _, _ in proofs] == ["token", "userinfo"], proofs
    keys = {json.dumps(header["jwk"], sort_keys=True) for _, header, _ in proofs}
    assert len(keys) == 1
    userinfo = next(c for c in stand.provider.calls if c.path == "/userinfo")
    assert userinfo.headers["authorization"].startswith("DPoP ")
    assert "ath" in proofs[1][2]
    if stand.provider.faults.dpop_nonce:
        assert proofs[0][2]["nonce"] == stand.provider.dpop_nonce_value
        assert proofs[1][2]["nonce"] == stand.provider.rs_nonce_value


def test_fapi2_security_profile_final_client_test_happy_path_no_dpop_nonce(servers, shared_stands):
    """fapi2-security-profile-final-client-test-happy-path-no-dpop-nonce: the DPoP happy path where neither the
    token nor the userinfo endpoint asks for a server nonce.

    Source: {FAPI2}/FAPI2SPFinalClientTestHappyPathNoDpopNonce.java
    """
    run_module(servers, shared_stands, Module(
        "fapi2-security-profile-final-client-test-happy-path-no-dpop-nonce", "", "",
        faults=lambda: Faults(dpop_nonce=False), setup=FAPI, check=check_no_nonce, fresh=True))


def check_no_nonce(stand: Stand, attempt: Attempt) -> None:
    check_dpop(stand, attempt)
    assert all("nonce" not in claims for _, _, claims in stand.provider.dpop_proofs)
    assert stand.provider.paths("POST").count("/token") == 1 and stand.provider.paths("GET").count("/userinfo") == 1


def test_fapi2_security_profile_final_client_test_rs_dpop_auth_scheme_case_insensitivity(servers, shared_stands):
    """fapi2-security-profile-final-client-test-rs-dpop-auth-scheme-case-insensitivity: the userinfo endpoint
    asks for a DPoP nonce with the scheme written `dPoP`; the client must answer the challenge all the same.

    Source: {FAPI2}/FAPI2SPFinalClientTestRSDpopAuthSchemeCaseInsenstivity.java
    """
    run_module(servers, shared_stands, Module(
        "fapi2-security-profile-final-client-test-rs-dpop-auth-scheme-case-insensitivity", "", "",
        faults=lambda: Faults(dpop_challenge_scheme="dPoP"), setup=FAPI, check=check_challenged_at_userinfo,
        fresh=True))


def check_challenged_at_userinfo(stand: Stand, attempt: Attempt) -> None:
    """The first userinfo request met the `dPoP` challenge (the endpoint's own nonce), the second passed."""
    check_dpop(stand, attempt)
    assert stand.provider.paths("GET").count("/userinfo") == 2, stand.provider.paths()


def test_dpop_nonce_challenge_answered_once_not_twice(servers, shared_stands):
    """RFC 9449 §8: a `use_dpop_nonce` error is answered with one retry carrying the nonce given. A server that
    asks again (a new nonce each time) gets no third request: the sign-in is refused."""
    stand = shared_stands(FAPI)
    stand.provider.reset(Faults(dpop_nonce_every_time=True))
    attempt = sign_in(stand)
    expect_refused(attempt, "token_endpoint_error")
    assert stand.provider.paths("POST").count("/token") == 2, stand.provider.paths()


def test_dpop_token_type_bearer_refused(servers, shared_stands):
    """RFC 9449 §5: a client that sent a proof must receive `token_type: DPoP`; a Bearer token in answer (a
    server that ignored the proof) is refused, and never used at userinfo."""
    stand = shared_stands(FAPI)
    stand.provider.reset(Faults(token_response=claims_with(token_type="Bearer")))
    attempt = sign_in(stand)
    expect_refused(attempt, "invalid_token_response")
    assert not stand.provider.called("/userinfo")


for _test in (test_fapi2_security_profile_final_client_test_happy_path_no_dpop_nonce,
              test_fapi2_security_profile_final_client_test_rs_dpop_auth_scheme_case_insensitivity):
    _test.__doc__ = _test.__doc__.replace("{FAPI2}", FAPI2)
del _test
