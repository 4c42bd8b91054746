/// The COSE algorithms (RFC 9053, IANA "COSE Algorithms") a WebAuthn credential key may use here.
package enum COSEAlgorithm: Int, Sendable, Hashable, CaseIterable {
    /// ECDSA on P-256 with SHA-256 (WebAuthn signatures are ASN.1 DER).
    case es256 = -7
    /// EdDSA; here Ed25519 only.
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = -257

    /// The JWS algorithm that verifies the same signatures (ES256 after the DER conversion).
    package var jwsAlgorithm: JWSAlgorithm {
        switch self {
        case .es256: return .es256
        case .edDSA: return .edDSA
        case .rs256: return .rs256
        }
    }

    /// The COSE key type (`kty`, label 1) this algorithm needs: 2 (EC2), 1 (OKP) or 3 (RSA).
    package var keyType: Int {
        switch self {
        case .es256: return 2
        case .edDSA: return 1
        case .rs256: return 3
        }
    }

    /// `"ES256"`, `"EdDSA"` or `"RS256"`.
    package var name: String { jwsAlgorithm.rawValue }
}

/// A credential public key as WebAuthn carries it: a COSE_Key (RFC 9052 §7) of type EC2 on P-256 with
/// alg -7, OKP Ed25519 with alg -8, or RSA with alg -257, converted to a validated ``JWK`` (the point on
/// its curve, RSA at least 2048 bits and not ROCA) whose signature checks are reused.
///
/// Anything else is refused with a `JOSEError`: another key type, algorithm or curve, a key type that
/// does not fit the algorithm, a missing `alg`, coordinates of the wrong length, private members, or a
/// label this profile does not know.
package struct COSEKey: Sendable {
    /// The key's `alg` (label 3).
    package let algorithm: COSEAlgorithm
    /// The public key, validated.
    package let jwk: JWK

    /// Converts a decoded COSE_Key.
    /// - Throws: `JOSEError` `.unsupportedAlgorithm` for an algorithm or key type other than the three,
    ///   `.keyMismatch` when the key type or curve does not fit `alg`, `.invalidKey` for a malformed key
    ///   (and `.weakKey` for a weak RSA key).
    package init(cbor: CBORValue) throws(JOSEError) {
        guard let entries = cbor.mapValue else {
            throw JOSEError(.invalidKey, "expected a COSE_Key map, found \(cbor.kind)")
        }
        let algorithm = try Self.algorithm(of: cbor)
        guard let keyType = cbor[label: 1]?.intValue else {
            throw JOSEError(.invalidKey, "expected an integer kty (label 1), found \(cbor[label: 1]?.kind ?? "none")")
        }
        guard keyType == algorithm.keyType else {
            throw JOSEError(
                .keyMismatch, "expected kty \(algorithm.keyType) for alg \(algorithm.rawValue), found kty \(keyType)")
        }
        try Self.checkLabels(entries, algorithm: algorithm)
        let material = try Self.material(of: cbor, algorithm: algorithm)
        self.algorithm = algorithm
        self.jwk = try JWK(
            material: material, keyID: nil, algorithm: algorithm.jwsAlgorithm, use: nil, keyOperations: nil)
    }

    /// Decodes and converts COSE_Key bytes (as a credential record stores them), which must be one CBOR
    /// data item and nothing else.
    /// - Throws: `JOSEError` `.invalidKey` when the bytes are not strict CBOR, else as ``init(cbor:)``.
    package init(bytes: [UInt8]) throws(JOSEError) {
        let value: CBORValue
        do {
            value = try CBORDecoder(maximumBytes: 4096, maximumDepth: 2).decode(bytes)
        } catch {
            throw JOSEError(.invalidKey, "expected a COSE_Key in strict CBOR, found \(error.description)")
        }
        try self.init(cbor: value)
    }

    /// The COSE_Key of a public key (its public half), with `alg` set: what an authenticator puts in its
    /// attested credential data.
    /// - Throws: `JOSEError` `.keyMismatch` when `algorithm` does not fit the key.
    package static func cbor(for key: JWK, algorithm: COSEAlgorithm) throws(JOSEError) -> CBORValue {
        try key.material.check(algorithm: algorithm.jwsAlgorithm, keyID: key.keyID)
        var entries = [
            CBORMapEntry(CBORValue(1), CBORValue(algorithm.keyType)),
            CBORMapEntry(CBORValue(3), CBORValue(algorithm.rawValue)),
        ]
        switch key.material {
        case .ec(_, let x, let y, _):
            entries += [
                CBORMapEntry(CBORValue(-1), CBORValue(1)), CBORMapEntry(CBORValue(-2), .bytes(x)),
                CBORMapEntry(CBORValue(-3), .bytes(y)),
            ]
        case .ed25519(let x, _):
            entries += [CBORMapEntry(CBORValue(-1), CBORValue(6)), CBORMapEntry(CBORValue(-2), .bytes(x))]
        case .rsa(let n, let e, _):
            entries += [CBORMapEntry(CBORValue(-1), .bytes(n)), CBORMapEntry(CBORValue(-2), .bytes(e))]
        case .oct:
            throw JOSEError(.keyMismatch, "expected an asymmetric key for a COSE_Key, found an oct key")
        }
        return .map(entries)
    }

    private static func algorithm(of cbor: CBORValue) throws(JOSEError) -> COSEAlgorithm {
        guard let value = cbor[label: 3] else {
            throw JOSEError(.invalidKey, "expected alg (label 3) in the COSE_Key, found none")
        }
        guard let number = value.intValue else {
            throw JOSEError(.invalidKey, "expected an integer alg (label 3), found \(value.kind)")
        }
        guard let algorithm = COSEAlgorithm(rawValue: number) else {
            throw JOSEError(
                .unsupportedAlgorithm, "expected alg -7 (ES256), -8 (EdDSA) or -257 (RS256), found \(number)")
        }
        return algorithm
    }

    /// Refuses private members and labels outside this profile (kty, kid, alg and the type's parameters).
    private static func checkLabels(_ entries: [CBORMapEntry], algorithm: COSEAlgorithm) throws(JOSEError) {
        let parameters: Set<Int> = algorithm == .es256 ? [-1, -2, -3] : [-1, -2]
        for entry in entries {
            guard let label = entry.key.intValue else {
                throw JOSEError(.invalidKey, "expected integer COSE_Key labels, found \(entry.key.kind)")
            }
            if label == 1 || label == 2 || label == 3 || parameters.contains(label) { continue }
            let isPrivate = algorithm == .rs256 ? (-8 ... -3).contains(label) : label == -4
            throw JOSEError(
                .invalidKey,
                isPrivate
                    ? "expected a public COSE_Key, found the private member label \(label)"
                    : "expected only the labels of a \(algorithm.name) key, found label \(label)")
        }
    }

    private static func material(of cbor: CBORValue, algorithm: COSEAlgorithm) throws(JOSEError) -> KeyMaterial {
        func bytes(_ label: Int, _ name: String) throws(JOSEError) -> [UInt8] {
            guard let value = cbor[label: label]?.bytesValue else {
                throw JOSEError(
                    .invalidKey,
                    "expected \(name) (label \(label)) as a byte string, found \(cbor[label: label]?.kind ?? "none")")
            }
            return value
        }
        switch algorithm {
        case .es256:
            let curve = cbor[label: -1]?.intValue
            guard curve == 1 else {
                throw JOSEError(
                    .keyMismatch, "expected crv 1 (P-256) for ES256, found \(curve.map(String.init) ?? "none")")
            }
            return .ec(curve: .p256, x: try bytes(-2, "x"), y: try bytes(-3, "y"), d: nil)
        case .edDSA:
            let curve = cbor[label: -1]?.intValue
            guard curve == 6 else {
                throw JOSEError(
                    .keyMismatch, "expected crv 6 (Ed25519) for EdDSA, found \(curve.map(String.init) ?? "none")")
            }
            return .ed25519(x: try bytes(-2, "x"), d: nil)
        case .rs256:
            return .rsa(n: try bytes(-1, "n"), e: try bytes(-2, "e"), privateParts: nil)
        }
    }

    /// Whether `signature` is this key's valid signature over `message`, in WebAuthn's encoding: ASN.1
    /// DER `ECDSA-Sig-Value` for ES256 (strict DER only: minimal lengths and integers, nothing after
    /// it), the 64 raw bytes for Ed25519, the modulus-length PKCS #1 v1.5 signature for RS256.
    package func verify(signature: [UInt8], over message: [UInt8]) -> Bool {
        signature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { message in
                switch algorithm {
                case .es256:
                    guard let raw = ECDSASignatureEncoding.raw(fromDER: signature, half: 32) else {
                        return false
                    }
                    return raw.withUnsafeBufferPointer {
                        jwk.verifySignature($0, over: message, algorithm: .es256)
                    }
                case .edDSA, .rs256:
                    return jwk.verifySignature(signature, over: message, algorithm: algorithm.jwsAlgorithm)
                }
            }
        }
    }
}

extension JWK {
    /// Signs `message` as a WebAuthn authenticator does (DER for ES256), for test authenticators.
    /// - Throws: `JOSEError` `.keyMismatch` when the algorithm does not fit the key, `.cryptoFailure`.
    package func webAuthnSignature(over message: [UInt8], algorithm: COSEAlgorithm) throws(JOSEError) -> [UInt8] {
        try material.check(algorithm: algorithm.jwsAlgorithm, keyID: keyID)
        let signature = try message.withUnsafeBufferPointer { buffer throws(JOSEError) in
            try self.signature(over: buffer, algorithm: algorithm.jwsAlgorithm)
        }
        guard algorithm == .es256 else { return signature }
        return signature.withUnsafeBufferPointer { ECDSASignatureEncoding.der(fromRaw: $0, half: 32) }
    }
}
