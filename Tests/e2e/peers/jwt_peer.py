#!/usr/bin/env python3
"""Independent JOSE peer for AuthFlow's cross-implementation tests.

Signs JWTs with PyJWT or jwcrypto, and verifies JWTs with PyJWT or jwcrypto, so the Swift
tests can check that tokens cross between AuthFlow and two other implementations both ways.

  jwt_peer.py sign   --lib pyjwt|jwcrypto --alg ALG --key FILE [--kid KID] --claims JSON
  jwt_peer.py verify --lib pyjwt|jwcrypto --alg ALG --jwks FILE [--issuer I] [--audience A] TOKEN

FILE is a PEM private key or a JWK (sign), or a JWK / JWK Set (verify). `verify` prints the
claims as JSON and exits 0, or prints the reason on stderr and exits 1. Usage errors exit 2.
"""
import argparse
import json
import sys

import jwt as pyjwt
from jwcrypto import jwk as jwcrypto_jwk
from jwcrypto import jwt as jwcrypto_jwt


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def load_signing_key_pyjwt(data, alg):
    text = data.decode()
    if text.lstrip().startswith("{"):
        return pyjwt.PyJWK.from_dict(json.loads(text), algorithm=alg).key
    from cryptography.hazmat.primitives.serialization import load_pem_private_key
    return load_pem_private_key(data, password=None)


def load_jwcrypto_key(data):
    text = data.decode()
    if text.lstrip().startswith("{"):
        return jwcrypto_jwk.JWK.from_json(text)
    return jwcrypto_jwk.JWK.from_pem(data)


def sign(args):
    claims = json.loads(args.claims)
    data = read(args.key)
    if args.lib == "pyjwt":
        headers = {"kid": args.kid} if args.kid else None
        token = pyjwt.encode(claims, load_signing_key_pyjwt(data, args.alg), algorithm=args.alg, headers=headers)
    else:
        key = load_jwcrypto_key(data)
        header = {"alg": args.alg, "typ": "JWT"}
        if args.kid:
            header["kid"] = args.kid
        token_object = jwcrypto_jwt.JWT(header=header, claims=claims)
        token_object.make_signed_token(key)
        token = token_object.serialize()
    print(token)
    return 0


def verify(args):
    document = json.loads(read(args.jwks))
    keys = document["keys"] if "keys" in document else [document]
    header = pyjwt.get_unverified_header(args.token)
    candidates = [k for k in keys if header.get("kid") is None or k.get("kid") == header.get("kid")]
    if len(candidates) != 1:
        print(f"expected one key for kid {header.get('kid')!r}, found {len(candidates)}", file=sys.stderr)
        return 1
    try:
        if args.lib == "pyjwt":
            key = pyjwt.PyJWK.from_dict(candidates[0], algorithm=args.alg).key
            options = {"require": ["exp", "iat"]}
            claims = pyjwt.decode(args.token, key=key, algorithms=[args.alg], audience=args.audience,
                                  issuer=args.issuer, options=options, leeway=60)
        else:
            key_set = jwcrypto_jwk.JWKSet()
            key_set.add(jwcrypto_jwk.JWK(**candidates[0]))
            check = {"exp": None, "iat": None}
            if args.issuer:
                check["iss"] = args.issuer
            if args.audience:
                check["aud"] = args.audience
            token_object = jwcrypto_jwt.JWT(jwt=args.token, key=key_set if header.get("kid") else jwcrypto_jwk.JWK(**candidates[0]),
                                            algs=[args.alg], check_claims=check)
            claims = json.loads(token_object.claims)
    except Exception as error:  # the peer reports any refusal the same way
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(claims, sort_keys=True))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sign")
    s.add_argument("--lib", choices=["pyjwt", "jwcrypto"], required=True)
    s.add_argument("--alg", required=True)
    s.add_argument("--key", required=True)
    s.add_argument("--kid")
    s.add_argument("--claims", required=True)
    v = sub.add_parser("verify")
    v.add_argument("--lib", choices=["pyjwt", "jwcrypto"], required=True)
    v.add_argument("--alg", required=True)
    v.add_argument("--jwks", required=True)
    v.add_argument("--issuer")
    v.add_argument("--audience")
    v.add_argument("token")
    args = parser.parse_args()
    return sign(args) if args.command == "sign" else verify(args)


if __name__ == "__main__":
    sys.exit(main())
