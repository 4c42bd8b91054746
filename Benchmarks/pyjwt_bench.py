#!/usr/bin/env python3
"""PyJWT throughput on the same ID token as AuthFlow's benchmark. Prints one JSON object.

usage: pyjwt_bench.py [seconds-per-measurement]
"""
import json
import sys
import time

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
ISSUER = "https://accounts.google.com"
AUDIENCE = "1234567890-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com"
NONCE = "n-0S6_WzA2Mj-7Rkqx3bQ9"


def claims(now):
    return {
        "iss": ISSUER, "azp": AUDIENCE, "aud": AUDIENCE, "sub": "110169484474386276334",
        "email": "jane.doe@example.com", "email_verified": True, "at_hash": "HK6E_P6Dh8Y93mRNtsDB1Q",
        "nonce": NONCE, "name": "Jane Doe", "picture": "https://lh3.googleusercontent.com/a/ACg8ocJ0example=s96-c",
        "given_name": "Jane", "family_name": "Doe", "locale": "en", "iat": now, "exp": now + 3600,
    }


def measure(body):
    for _ in range(100):
        body()
    operations = 0
    start = time.perf_counter()
    while True:
        for _ in range(50):
            body()
        operations += 50
        elapsed = time.perf_counter() - start
        if elapsed >= SECONDS:
            return operations / elapsed


def verify(token, key, algorithm):
    decoded = jwt.decode(token, key=key, algorithms=[algorithm], audience=AUDIENCE,
                         issuer=[ISSUER, "accounts.google.com"], options={"require": ["exp", "iat", "iss", "aud"]}, leeway=60)
    if decoded.get("nonce") != NONCE:
        raise ValueError("nonce mismatch")


def main():
    now = int(time.time())
    ec_key = ec.generate_private_key(ec.SECP256R1())
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    payload = claims(now)
    ec_token = jwt.encode(payload, ec_key, algorithm="ES256", headers={"kid": "ec-bench"})
    rsa_token = jwt.encode(payload, rsa_key, algorithm="RS256", headers={"kid": "rsa-bench"})
    ec_public, rsa_public = ec_key.public_key(), rsa_key.public_key()
    verify(ec_token, ec_public, "ES256")
    verify(rsa_token, rsa_public, "RS256")
    result = {
        "es256_sign": int(measure(lambda: jwt.encode(payload, ec_key, algorithm="ES256", headers={"kid": "ec-bench"}))),
        "es256_verify": int(measure(lambda: verify(ec_token, ec_public, "ES256"))),
        "rs256_verify": int(measure(lambda: verify(rsa_token, rsa_public, "RS256"))),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
