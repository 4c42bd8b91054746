/// The numbers of a key, as unsigned big-endian bytes. Internal to ``JWK``.
enum KeyMaterial: Hashable, Sendable {
    /// `privateParts`: d, p, q, dp, dq, qi.
    case rsa(n: [UInt8], e: [UInt8], privateParts: [[UInt8]]?)
    case ec(curve: ECCurve, x: [UInt8], y: [UInt8], d: [UInt8]?)
    case ed25519(x: [UInt8], d: [UInt8]?)
    case oct(k: [UInt8])

    static let minimumRSABits = 2048
    static let maximumRSABits = 16384

    var keyType: String {
        switch self {
        case .rsa: return "RSA"
        case .ec: return "EC"
        case .ed25519: return "OKP"
        case .oct: return "oct"
        }
    }

    var isPrivate: Bool {
        switch self {
        case .rsa(_, _, let parts): return parts != nil
        case .ec(_, _, _, let d): return d != nil
        case .ed25519(_, let d): return d != nil
        case .oct: return true
        }
    }

    var publicOnly: KeyMaterial {
        switch self {
        case .rsa(let n, let e, _): return .rsa(n: n, e: e, privateParts: nil)
        case .ec(let curve, let x, let y, _): return .ec(curve: curve, x: x, y: y, d: nil)
        case .ed25519(let x, _): return .ed25519(x: x, d: nil)
        case .oct: return self
        }
    }

    /// Refuses an algorithm the key cannot serve.
    func check(algorithm: JWSAlgorithm, keyID: String?) throws(JOSEError) {
        guard algorithm.keyType == keyType else {
            throw JOSEError(
                .keyMismatch,
                "expected a key of type \(algorithm.keyType) for \(algorithm.rawValue), found kty \(keyType)",
                keyID: keyID)
        }
        switch self {
        case .ec(let curve, _, _, _):
            guard algorithm.curve == curve else {
                throw JOSEError(
                    .keyMismatch,
                    "expected curve \(algorithm.curve?.rawValue ?? "?") for \(algorithm.rawValue), found \(curve.rawValue)",
                    keyID: keyID)
            }
        case .oct(let k):
            guard k.count >= algorithm.hashLength else {
                throw JOSEError(
                    .weakKey,
                    "expected an HMAC key of at least \(algorithm.hashLength) bytes for \(algorithm.rawValue), found \(k.count)",
                    keyID: keyID)
            }
        default:
            break
        }
    }

    /// Validates the numbers and builds the OpenSSL key (none for `oct`).
    func makeKey(keyID: String?) throws(JOSEError) -> PKey? {
        switch self {
        case .rsa(let n, let e, let parts):
            try Self.checkRSA(n: n, e: e, keyID: keyID)
            guard let key = PKey.rsa(n: n, e: e, privateParts: parts) else {
                throw JOSEError(.invalidKey, "expected a usable RSA key, found one OpenSSL cannot load", keyID: keyID)
            }
            if parts != nil, !key.pairwiseCheck() {
                throw JOSEError(
                    .invalidKey, "expected the RSA private members to match n and e, found an inconsistent key",
                    keyID: keyID)
            }
            return key
        case .ec(let curve, let x, let y, let d):
            return try Self.makeECKey(curve: curve, x: x, y: y, d: d, keyID: keyID)
        case .ed25519(let x, let d):
            guard x.count == 32 else {
                throw JOSEError(.invalidKey, "expected a 32-byte Ed25519 x, found \(x.count) bytes", keyID: keyID)
            }
            if let d {
                guard d.count == 32 else {
                    throw JOSEError(.invalidKey, "expected a 32-byte Ed25519 d, found \(d.count) bytes", keyID: keyID)
                }
                guard let key = PKey.ed25519(x: x, d: d), key.rawPublicKey == x else {
                    throw JOSEError(
                        .invalidKey, "expected d to match x, found an inconsistent Ed25519 key", keyID: keyID)
                }
                return key
            }
            guard let key = PKey.ed25519(x: x, d: nil) else {
                throw JOSEError(
                    .invalidKey, "expected a usable Ed25519 public key, found one OpenSSL cannot load", keyID: keyID)
            }
            return key
        case .oct(let k):
            guard k.count >= 32 else {
                throw JOSEError(.weakKey, "expected an HMAC key of at least 32 bytes, found \(k.count)", keyID: keyID)
            }
            return nil
        }
    }

    /// Checks an EC key's sizes, that its point is on the curve and that `d` matches it, and loads it.
    static func makeECKey(curve: ECCurve, x: [UInt8], y: [UInt8], d: [UInt8]?, keyID: String?) throws(JOSEError)
        -> PKey
    {
        let size = curve.coordinateLength
        guard x.count == size, y.count == size else {
            throw JOSEError(
                .invalidKey,
                "expected \(size)-byte x and y for \(curve.rawValue), found \(x.count) and \(y.count) bytes",
                keyID: keyID)
        }
        if let d, d.count != size {
            throw JOSEError(
                .invalidKey, "expected a \(size)-byte d for \(curve.rawValue), found \(d.count) bytes", keyID: keyID
            )
        }
        guard let key = PKey.ec(curve: curve, x: x, y: y, d: d), key.publicCheck() else {
            throw JOSEError(
                .invalidKey, "expected a point on \(curve.rawValue), found one that is not on the curve",
                keyID: keyID)
        }
        if d != nil, !key.pairwiseCheck() {
            throw JOSEError(
                .invalidKey, "expected d to match the public point, found an inconsistent key", keyID: keyID)
        }
        return key
    }

    static func stripLeadingZeros(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var start = 0
        while start < bytes.count, bytes[start] == 0 { start += 1 }
        return bytes[start...]
    }

    static func bitLength(_ bytes: ArraySlice<UInt8>) -> Int {
        guard let first = bytes.first else { return 0 }
        return (bytes.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }

    static func checkRSA(n: [UInt8], e: [UInt8], keyID: String?) throws(JOSEError) {
        let modulus = stripLeadingZeros(n)
        let exponent = stripLeadingZeros(e)
        let bits = bitLength(modulus)
        guard bits >= minimumRSABits else {
            throw JOSEError(
                .weakKey, "expected an RSA modulus of at least \(minimumRSABits) bits, found \(bits) bits", keyID: keyID
            )
        }
        guard bits <= maximumRSABits else {
            throw JOSEError(
                .invalidKey, "expected an RSA modulus of at most \(maximumRSABits) bits, found \(bits) bits",
                keyID: keyID)
        }
        guard let lastModulusByte = modulus.last, lastModulusByte & 1 == 1 else {
            throw JOSEError(.invalidKey, "expected an odd RSA modulus, found an even one", keyID: keyID)
        }
        guard let lastExponentByte = exponent.last, exponent.count <= 32 else {
            throw JOSEError(
                .invalidKey, "expected an RSA public exponent of 1 to 32 bytes, found \(exponent.count) bytes",
                keyID: keyID)
        }
        guard lastExponentByte & 1 == 1 else {
            throw JOSEError(.weakKey, "expected an odd RSA public exponent, found an even one", keyID: keyID)
        }
        guard !(exponent.count == 1 && lastExponentByte == 1) else {
            throw JOSEError(.weakKey, "expected an RSA public exponent greater than 1, found 1", keyID: keyID)
        }
        if ROCA.isVulnerable(modulus: modulus) {
            throw JOSEError(
                .weakKey, "expected an RSA modulus without the ROCA (CVE-2017-15361) structure, found a vulnerable one",
                keyID: keyID)
        }
    }
}
