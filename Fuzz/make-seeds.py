#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz harnesses into Fuzz/Corpus/<harness>/ (run from anywhere; needs
pyjwt[crypto], as in Tests/e2e/requirements.txt). Tokens are signed with the fixed fuzz keys held in
Sources/FuzzSupport/FixedKeys.swift, so the harnesses can verify them."""
import hashlib
import json
import pathlib
import re
import urllib.parse

import jwt

here = pathlib.Path(__file__).resolve().parent
root = here.parent
source = (here / "Sources/FuzzSupport/FixedKeys.swift").read_text()
pems = re.findall(r'"""\n(.*?)\n\s*"""', source, re.S)
rsa_pem, ec_pem = ("\n".join(line.strip() for line in pem.splitlines()) + "\n" for pem in pems)
ISSUER, AUDIENCE, NOW = "https://issuer.fuzz.example", "fuzz-client", 1_750_000_000


def write(harness, name, data):
    directory = here / "Corpus" / harness
    directory.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    (directory / name).write_bytes(data)


claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "fuzz-subject", "iat": NOW, "exp": NOW + 600, "nonce": "fuzz-nonce"}
write("FuzzJWT", "rs256", jwt.encode(claims, rsa_pem, algorithm="RS256", headers={"kid": "fuzz-rsa"}))
write("FuzzJWT", "ps256", jwt.encode(claims, rsa_pem, algorithm="PS256", headers={"kid": "fuzz-rsa"}))
write("FuzzJWT", "es256", jwt.encode(claims, ec_pem, algorithm="ES256", headers={"kid": "fuzz-ec"}))
write("FuzzJWT", "es256-no-kid", jwt.encode(claims, ec_pem, algorithm="ES256"))
write("FuzzJWT", "azp-aud-list", jwt.encode(
    dict(claims, aud=[AUDIENCE, "other"], azp=AUDIENCE), rsa_pem, algorithm="RS256", headers={"kid": "fuzz-rsa"}))
write("FuzzJWT", "hs256", jwt.encode(claims, "secret", algorithm="HS256", headers={"kid": "fuzz-rsa"}))
write("FuzzJWT", "none", jwt.encode(claims, None, algorithm="none"))
write("FuzzJWT", "crit", jwt.encode(claims, rsa_pem, algorithm="RS256", headers={"kid": "fuzz-rsa", "crit": ["exp"]}))

for name, text in {
    "object": '{"a": [1, 2.5, -3e10, true, false, null], "b": {"c": "\\u00e9\\ud83d\\ude00"}}',
    "nested": "[" * 40 + "]" * 40, "numbers": "[0, -0, 1e308, 123456789012345678901234567890, 0.1]",
    "escapes": '"\\b\\f\\n\\r\\t\\/\\\\\\""', "duplicate": '{"a": 1, "a": 2}',
}.items():
    write("FuzzJSON", name, text)

from jwt.algorithms import ECAlgorithm, RSAAlgorithm  # noqa: E402

rsa_jwk = json.loads(RSAAlgorithm.to_jwk(jwt.api_jws.get_algorithm_by_name("RS256").prepare_key(rsa_pem).public_key()))
ec_jwk = json.loads(ECAlgorithm.to_jwk(jwt.api_jws.get_algorithm_by_name("ES256").prepare_key(ec_pem).public_key()))
rsa_jwk.update(kid="fuzz-rsa", use="sig", alg="RS256")
ec_jwk.update(kid="fuzz-ec", use="sig")
write("FuzzJWKS", "set", json.dumps({"keys": [rsa_jwk, ec_jwk]}))
write("FuzzJWKS", "rsa", json.dumps(rsa_jwk))
write("FuzzJWKS", "ec", json.dumps(ec_jwk))
write("FuzzJWKS", "okp", json.dumps({"kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}))
write("FuzzJWKS", "oct", json.dumps({"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}))

write("FuzzConfiguration", "root", (root / "providers.yaml").read_text())
for example in sorted((root / "examples").glob("*.yaml")):
    write("FuzzConfiguration", example.stem, example.read_text())
write("FuzzConfiguration", "full", """server:
  listen: 127.0.0.1:8080
  public_url: http://localhost:8080
  secret: ${AUTHFLOW_SECRET}
  allowed_return_to: [/, https://app.example.com]
  session_ttl: 1h30m
  signup: false
  link_by_verified_email: [apple, google]
sandbox:
  listen: 127.0.0.1:0
store:
  kind: sqlite
  path: authflow.sqlite
providers:
  apple:
    type: apple
    client_id: com.example.web
    audiences: [com.example.ios]
    team_id: ABCDE12345
    key_id: KEY1234567
    private_key_file: key.p8
    scopes: [name, email]
  google:
    type: google
    client_id: abc
    client_secret_file: secret.txt
    capabilities: { oidc: true, pkce: true }
    endpoints: { token: "http://127.0.0.1:9/token" }
  corp:
    type: oidc
    issuer: https://login.example.com
    client_id: x
    client_secret: ${EMPTY:-fallback}
""")

STATE = "state-0123456789abcdef0123456789abcdef012"
user = json.dumps({"name": {"firstName": "Ada", "lastName": "Lovelace"}, "email": "ada@example.com"})
write("FuzzCallback", "apple-post", b"\x00" + urllib.parse.urlencode(
    [("state", STATE), ("code", "c0de"), ("user", user)]).encode())
write("FuzzCallback", "apple-error", b"\x00" + urllib.parse.urlencode(
    [("state", STATE), ("error", "user_cancelled_authorize")]).encode())
write("FuzzCallback", "apple-bad-user", b"\x00state=" + STATE.encode() + b"&code=c&user=%7B%22name%22%3A%FF%7D")
write("FuzzCallback", "google-get", b"\x01" + urllib.parse.urlencode(
    [("state", STATE), ("code", "4/0Ab"), ("iss", "https://accounts.google.com"), ("scope", "openid email")]).encode())
write("FuzzCallback", "google-twice", b"\x01state=" + STATE.encode() + b"&state=x&code=1&code=2")

write("FuzzCookie", "two", "a=1; b=\"quoted\"; c")
write("FuzzCookie", "flow", "__Host-authflow_flow=v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.AAAA; x=y\nsession=abc")

write("FuzzAppleUser", "full", user)
write("FuzzAppleUser", "first-only", '{"name":{"firstName":"\\u00c9mile"}}')
write("FuzzAppleUser", "null-last", '{"name":{"firstName":"A","lastName":null}}')
write("FuzzAppleUser", "invalid-utf8", b'{"name":{"firstName":"\xff\xfe"}}')
write("FuzzAppleUser", "not-json", "Ada Lovelace")

events = json.dumps({"type": "email-disabled", "sub": "000544.abc", "email": "x@privaterelay.appleid.com",
                     "is_private_email": "true", "event_time": NOW * 1000})
notification = {"iss": "https://appleid.apple.com", "aud": "com.example.web", "iat": NOW, "exp": NOW + 3600,
                "jti": "fuzz-jti-1", "events": events}
write("FuzzNotification", "email-disabled", json.dumps({"payload": jwt.encode(
    notification, rsa_pem, algorithm="RS256", headers={"kid": "fuzz-rsa"})}))
write("FuzzNotification", "events-object", json.dumps({"payload": jwt.encode(
    dict(notification, jti="fuzz-jti-2", events=json.loads(events)), rsa_pem, algorithm="RS256",
    headers={"kid": "fuzz-rsa"})}))
write("FuzzNotification", "not-jws", '{"payload": "a.b.c"}')

write("FuzzFlowCookie", "sealed-shape", "v1." + "A" * 43 + "." + "B" * 43)
write("FuzzFlowCookie", "digest", hashlib.sha256(b"seed").hexdigest())
# A stored session record (RedisSessionRecord): each field as <byte count>:<bytes>.
record = b"".join(b"%d:%s" % (len(field), field) for field in (
    b"1", b"1750000000.0", b"1750003600.0", b"u-alice", b"apple", b"alice.1321", b"+sid"))
for name, data in {
    "status": b"+OK\r\n",
    "nil": b"$-1\r\n",
    "integer": b":-42\r\n",
    "error": b"-NOSCRIPT No matching script\r\n",
    "bulk": b"$5\r\nhello\r\n",
    "rate-limit": b"*2\r\n:1\r\n$3\r\n3.5\r\n",
    "nested": b"*3\r\n*1\r\n:1\r\n*-1\r\n$0\r\n\r\n",
    "session-record": b"$%d\r\n%s\r\n" % (len(record), record),
    "two-replies": b"+OK\r\n:7\r\n",
}.items():
    write("FuzzRedisReply", name, data)


def b64url(data):
    import base64
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed_request(payload, secret="fuzz-app-secret", padded=False):
    import hmac
    body = b64url(json.dumps(payload).encode())
    if padded:  # the HMAC covers the payload text as sent, padding included
        body += "=" * (-len(body) % 4)
    signature = b64url(hmac.new(secret.encode(), body.encode(), hashlib.sha256).digest())
    if padded:
        signature += "=" * (-len(signature) % 4)
    return urllib.parse.urlencode([("signed_request", signature + "." + body)])


callback = {"algorithm": "HMAC-SHA256", "issued_at": NOW, "user_id": "10001"}
write("FuzzSignedRequest", "deletion", signed_request(callback))
write("FuzzSignedRequest", "padded", signed_request(dict(callback, user_id="10002"), padded=True))
write("FuzzSignedRequest", "login-code", signed_request(dict(callback, code="AQD-login-code")))
write("FuzzSignedRequest", "login-token", signed_request(dict(callback, oauth_token="EAAB-token")))
write("FuzzSignedRequest", "stale", signed_request(dict(callback, issued_at=NOW - 601)))
write("FuzzSignedRequest", "other-secret", signed_request(callback, secret="not-the-app-secret"))
write("FuzzSignedRequest", "sha1", signed_request(dict(callback, algorithm="HMAC-SHA1")))
write("FuzzSignedRequest", "three-parts", "signed_request=a.b.c&signed_request=x")

GOOGLE_CLIENT = "fuzz-client.apps.googleusercontent.com"
RISC = "https://schemas.openid.net/secevent/risc/event-type/"
OAUTH = "https://schemas.openid.net/secevent/oauth/event-type/"
subject = {"subject_type": "iss-sub", "iss": "https://accounts.google.com/", "sub": "fuzz-subject"}
set_claims = {"iss": "https://accounts.google.com/", "aud": GOOGLE_CLIENT, "iat": NOW, "jti": "fuzz-set-1"}
for name, events in {
    "sessions-revoked": {RISC + "sessions-revoked": {"subject": subject}},
    "tokens-revoked": {OAUTH + "tokens-revoked": {"subject": subject}},
    "token-revoked": {OAUTH + "token-revoked": {"subject": {
        "subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "prefix",
        "token": "1//0fuzz"}}},
    "account-disabled": {RISC + "account-disabled": {"subject": subject, "reason": "hijacking"}},
    "account-enabled": {RISC + "account-enabled": {"subject": subject}},
    "verification": {RISC + "verification": {"state": "fuzz-state"}},
}.items():
    write("FuzzSecurityEvent", name, jwt.encode(
        dict(set_claims, jti="fuzz-" + name, events=events), rsa_pem, algorithm="RS256", headers={"kid": "fuzz-rsa"}))
write("FuzzSecurityEvent", "hs256", jwt.encode(
    dict(set_claims, events={RISC + "verification": {}}), "secret", algorithm="HS256", headers={"kid": "fuzz-rsa"}))

logout = {"iss": ISSUER, "aud": AUDIENCE, "iat": NOW, "exp": NOW + 120, "jti": "fuzz-logout-1", "sub": "fuzz-subject",
          "events": {"http://schemas.openid.net/event/backchannel-logout": {}}}
for name, claims_, key, algorithm, kid in (
    ("sub", logout, rsa_pem, "RS256", "fuzz-rsa"),
    ("sid", dict(logout, jti="fuzz-logout-2", sid="fuzz-sid"), ec_pem, "ES256", "fuzz-ec"),
    ("nonce", dict(logout, jti="fuzz-logout-3", nonce="n"), rsa_pem, "RS256", "fuzz-rsa"),
    ("no-events", {k: v for k, v in logout.items() if k != "events"}, rsa_pem, "RS256", "fuzz-rsa"),
):
    token = jwt.encode(claims_, key, algorithm=algorithm, headers={"kid": kid})
    write("FuzzLogoutToken", name, urllib.parse.urlencode([("logout_token", token)]))
write("FuzzLogoutToken", "empty", "logout_token=")

# Native sign-in bodies: @NONCE@ and @ID_TOKEN@ stand for the harness's issued nonce and its matching token.
NATIVE_WEB, NATIVE_IOS = "fuzz-client.apps.googleusercontent.com", "fuzz-ios.apps.googleusercontent.com"
native_claims = {"iss": "https://accounts.google.com", "aud": NATIVE_WEB, "azp": NATIVE_IOS,
                 "sub": "fuzz-native-subject", "iat": NOW, "exp": NOW + 600, "nonce": "another-nonce"}
for name, body in {
    "valid": {"id_token": "@ID_TOKEN@", "nonce": "@NONCE@"},
    "register": {"id_token": "@ID_TOKEN@", "nonce": "@NONCE@", "intent": "register"},
    "user": {"id_token": "@ID_TOKEN@", "nonce": "@NONCE@", "user": {"name": {"firstName": "A", "lastName": "B"}}},
    "user-text": {"id_token": "@ID_TOKEN@", "nonce": "@NONCE@", "user": "{\"name\":{\"firstName\":\"A\"}}"},
    "code": {"id_token": "@ID_TOKEN@", "nonce": "@NONCE@", "code": "c0de"},
    "other-nonce": {"id_token": jwt.encode(native_claims, rsa_pem, algorithm="RS256", headers={"kid": "fuzz-rsa"}),
                    "nonce": "@NONCE@"},
    "web-audience": {"id_token": jwt.encode(dict(native_claims, azp=NATIVE_WEB), rsa_pem, algorithm="RS256",
                                            headers={"kid": "fuzz-rsa"}), "nonce": "@NONCE@"},
    "forged-nonce": {"id_token": "@ID_TOKEN@", "nonce": "bm90LWEtc2VhbGVkLW5vbmNl"},
    "no-nonce": {"id_token": "@ID_TOKEN@"},
    "wrong-types": {"id_token": 1, "nonce": ["@NONCE@"], "intent": "delete"},
}.items():
    write("FuzzNativeSignIn", name, json.dumps(body))
write("FuzzNativeSignIn", "array", "[]")
write("FuzzNativeSignIn", "not-json", "id_token=x&nonce=y")

# CBOR: the W3C WebAuthn test vectors' attestation objects, credential keys and ES256 signatures (copied into the
# WebAuthn tests' fixtures), and a few hand-made items at the edges of the strict profile.
vectors = json.loads((root / "Tests/AuthFlowWebAuthnTests/Fixtures/w3c-webauthn-l3-vectors.json").read_text())
for vector in vectors["vectors"]:
    name = vector["name"].replace(".", "-")
    write("FuzzCBOR", name + "-attestation-object", bytes.fromhex(vector["registration"]["attestationObject"]))
    authentication = vector.get("authentication")
    if authentication:
        write("FuzzCBOR", name + "-key", bytes.fromhex(authentication["credentialPublicKey"]))
        if authentication["signature"].startswith("30"):
            write("FuzzCBOR", name + "-signature", bytes.fromhex(authentication["signature"]))
for name, text in {
    "extensions": "a26b6372656450726f7465637402696c61726765426c6f62f5", "nested": "81" * 16 + "00",
    "indefinite": "bf6161f5ff", "non-canonical": "a1180100", "duplicate": "a2010201f6", "tag": "c1f5",
}.items():
    write("FuzzCBOR", name, bytes.fromhex(text))

# Forward auth: a flags byte (bit 0: the peer is a trusted proxy; bit 1: the signed-in session's cookie is sent),
# then the rules segment of /auth/forward/RULES and `Name: value` headers, one per line.
browser = "Accept: text/html,application/xhtml+xml\nUser-Agent: Mozilla/5.0"
forwarded = ("X-Forwarded-Method: GET\nX-Forwarded-Proto: https\nX-Forwarded-Host: app.example\n"
             "X-Forwarded-Uri: /reports?q=1")
for name, flags, rules, headers in [
    ("anonymous-browser-trusted", 1, "", browser + "\n" + forwarded),
    ("anonymous-browser-untrusted", 0, "", browser + "\n" + forwarded),
    ("anonymous-api", 1, "group=admins", "Accept: application/json\n" + forwarded),
    ("other-host", 1, "provider=google", browser + "\nX-Forwarded-Proto: https\nX-Forwarded-Host: other.example\n"
     "X-Forwarded-Uri: //evil.example/"),
    ("signed-in-rules", 3, "group=admins,ops&provider=google", browser),
    ("signed-in-refused", 2, "group=finance", "Accept: */*"),
    ("repeated-rule", 3, "group=admins&group=ops", browser),
    ("forged-identity", 0, "", "X-Auth-Request-User: admin\nX-Forwarded-User: admin\nCookie: authflow_session=forged"),
]:
    write("FuzzForwardAuth", name, bytes([flags]) + (rules + "\n" + headers).encode())

print("seeds written to", here / "Corpus")
