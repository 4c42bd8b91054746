"""Passkeys against a running `authflow serve`, with python-fido2 (Yubico's WebAuthn library, not written here)
building the other side: the client data, the authenticator data, the COSE key and the attestation object a
browser and an authenticator would send. The server's answers are checked as black boxes.
"""

from __future__ import annotations

import json
import os

import pytest
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

fido2 = pytest.importorskip("fido2")
from fido2.cose import ES256  # noqa: E402
from fido2.utils import sha256, websafe_decode, websafe_encode  # noqa: E402
from fido2.webauthn import (  # noqa: E402
    AttestationObject,
    AttestedCredentialData,
    AuthenticatorData,
    CollectedClientData,
)

PASSKEY = "  passkey:\n    type: passkey\n"
FLAG = AuthenticatorData.FLAG


class Authenticator:
    """One ES256 discoverable credential, as a platform authenticator keeps it."""

    def __init__(self):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(32)
        self.user_handle: bytes | None = None
        self.count = 0

    def register(self, options: dict, origin: str, *, flags=FLAG.UP | FLAG.UV | FLAG.AT) -> dict:
        public_key = options["publicKey"]
        self.user_handle = websafe_decode(public_key["user"]["id"])
        client_data = CollectedClientData.create(
            type=CollectedClientData.TYPE.CREATE, challenge=websafe_decode(public_key["challenge"]), origin=origin)
        credential = AttestedCredentialData.create(
            b"\0" * 16, self.credential_id, ES256.from_cryptography_key(self.key.public_key()))
        auth_data = AuthenticatorData.create(sha256(public_key["rp"]["id"].encode()), flags, 0, credential)
        attestation = AttestationObject.create("none", auth_data, {})
        return {
            "id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": websafe_encode(bytes(client_data)),
                "attestationObject": websafe_encode(bytes(attestation)), "transports": ["internal"],
            },
            "clientExtensionResults": {},
        }

    def assert_(self, options: dict, origin: str, *, flags=FLAG.UP | FLAG.UV, corrupt=False) -> dict:
        public_key = options["publicKey"]
        self.count += 1
        client_data = CollectedClientData.create(
            type=CollectedClientData.TYPE.GET, challenge=websafe_decode(public_key["challenge"]), origin=origin)
        auth_data = AuthenticatorData.create(sha256(public_key["rpId"].encode()), flags, self.count)
        signature = self.key.sign(bytes(auth_data) + client_data.hash, ec.ECDSA(hashes.SHA256()))
        if corrupt:
            signature = signature[:-1] + bytes([signature[-1] ^ 1])
        return {
            "id": websafe_encode(self.credential_id), "rawId": websafe_encode(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": websafe_encode(bytes(client_data)),
                "authenticatorData": websafe_encode(bytes(auth_data)), "signature": websafe_encode(signature),
                "userHandle": websafe_encode(self.user_handle),
            },
            "clientExtensionResults": {},
        }


@pytest.fixture
def app(servers):
    server = servers.launch(providers=(), extra_providers=PASSKEY)
    return server.app_url


def post(session: requests.Session, url: str, body: dict) -> requests.Response:
    origin = url.split("/auth/", 1)[0]
    return session.post(url, data=json.dumps(body), timeout=30,
                        headers={"Content-Type": "application/json", "Origin": origin})


def register(session: requests.Session, app: str, authenticator: Authenticator, **kwargs) -> requests.Response:
    options = post(session, f"{app}/auth/passkey/register/options", {"name": "alice@example.com"})
    assert options.status_code == 200, options.text
    credential = authenticator.register(options.json(), app, **kwargs)
    return post(session, f"{app}/auth/passkey/register",
                {"ceremony": options.json()["ceremony"], "credential": credential})


def authenticate(session: requests.Session, app: str, authenticator: Authenticator, session_kind="cookie",
                 **kwargs) -> requests.Response:
    options = post(session, f"{app}/auth/passkey/authenticate/options", {})
    assert options.status_code == 200, options.text
    assert options.json()["publicKey"]["allowCredentials"] == []
    credential = authenticator.assert_(options.json(), app, **kwargs)
    return post(session, f"{app}/auth/passkey/authenticate",
                {"ceremony": options.json()["ceremony"], "credential": credential, "session": session_kind})


def test_sign_up_then_sign_in_with_cookie_and_bearer(app):
    authenticator = Authenticator()
    browser = requests.Session()
    signed_up = register(browser, app, authenticator)
    assert signed_up.status_code == 200, signed_up.text
    user = signed_up.json()["user_id"]
    assert browser.get(f"{app}/auth/session", timeout=30).json()["user_id"] == user

    other = requests.Session()
    cookie = authenticate(other, app, authenticator)
    assert cookie.status_code == 200 and cookie.json()["user_id"] == user
    assert other.get(f"{app}/auth/session", timeout=30).status_code == 200

    bearer = authenticate(requests.Session(), app, authenticator, session_kind="bearer")
    assert bearer.status_code == 200 and bearer.json()["token_type"] == "Bearer"
    token = bearer.json()["session_token"]
    session = requests.get(f"{app}/auth/session", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert session.json()["user_id"] == user and session.json()["provider"] == "passkey"

    listed = browser.get(f"{app}/auth/passkey/credentials", timeout=30).json()["credentials"]
    assert [item["id"] for item in listed] == [websafe_encode(authenticator.credential_id)]
    assert listed[0]["last_used_at"] is not None


def test_refusals_leave_no_user_or_session(app):
    refused = register(requests.Session(), app, Authenticator(), flags=FLAG.UP | FLAG.AT)
    assert refused.status_code == 400 and refused.json()["error"] == "user_not_verified"
    refused = register(requests.Session(), app, Authenticator(), flags=FLAG.UP | FLAG.UV | FLAG.AT | FLAG.BS)
    assert refused.json()["error"] == "backup_state_invalid"

    authenticator = Authenticator()
    assert register(requests.Session(), app, authenticator).status_code == 200
    browser = requests.Session()
    bad = authenticate(browser, app, authenticator, corrupt=True)
    assert bad.status_code == 400 and bad.json()["error"] == "signature_invalid"
    assert browser.get(f"{app}/auth/session", timeout=30).status_code == 401
    assert authenticate(requests.Session(), app, authenticator).status_code == 200
    authenticator.count -= 1  # a clone that reuses the last counter
    stale = authenticate(browser, app, authenticator)
    assert stale.status_code == 400 and stale.json()["error"] == "sign_count_not_increased"
    assert browser.get(f"{app}/auth/session", timeout=30).status_code == 401

    not_json = browser.post(f"{app}/auth/passkey/authenticate", data="{}", timeout=30,
                            headers={"Content-Type": "text/plain", "Origin": app})
    assert not_json.status_code == 415
