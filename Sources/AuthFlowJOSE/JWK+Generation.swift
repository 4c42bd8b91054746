extension JWK {
    /// A fresh P-256 key pair (ES256).
    /// - Throws: `JOSEError` `.cryptoFailure` if OpenSSL cannot generate it.
    public static func generateP256(keyID: String? = nil) throws(JOSEError) -> JWK {
        guard let key = PKey.generateEC(.p256), let (x, y, d) = key.ecKeyPair(curve: .p256) else {
            throw JOSEError(.cryptoFailure, "expected OpenSSL to generate a P-256 key, it failed")
        }
        // OpenSSL's own key pair: kept as generated, not rebuilt from its members and checked again.
        return JWK(generated: key, material: .ec(curve: .p256, x: x, y: y, d: d), keyID: keyID)
    }

    /// A fresh RSA key pair of `bits` bits (at least 2048).
    /// - Throws: `JOSEError` `.weakKey` below 2048 bits, `.invalidKey` above 16384, `.cryptoFailure`
    ///   if OpenSSL cannot generate it.
    public static func generateRSA(bits: Int = 2048, keyID: String? = nil) throws(JOSEError) -> JWK {
        guard bits >= KeyMaterial.minimumRSABits else {
            throw JOSEError(.weakKey, "expected at least \(KeyMaterial.minimumRSABits) bits, found \(bits)")
        }
        guard bits <= KeyMaterial.maximumRSABits else {
            throw JOSEError(.invalidKey, "expected at most \(KeyMaterial.maximumRSABits) bits, found \(bits)")
        }
        guard let key = PKey.generateRSA(bits: bits) else {
            throw JOSEError(.cryptoFailure, "expected OpenSSL to generate an RSA key, it failed")
        }
        return try JWK(pkey: key, keyID: keyID)
    }

    /// A fresh Ed25519 key pair (EdDSA).
    /// - Throws: `JOSEError` `.cryptoFailure` if OpenSSL cannot generate it.
    package static func generateEd25519(keyID: String? = nil) throws(JOSEError) -> JWK {
        guard let key = PKey.generateEd25519() else {
            throw JOSEError(.cryptoFailure, "expected OpenSSL to generate an Ed25519 key, it failed")
        }
        return try JWK(pkey: key, keyID: keyID)
    }

    /// A copy of this key with another `kid`, `alg` and `use` (validated again).
    /// - Throws: `JOSEError` `.keyMismatch` when `algorithm` does not fit the key.
    package func with(keyID: String?, algorithm: JWSAlgorithm? = nil, use: String? = nil) throws(JOSEError) -> JWK {
        try JWK(material: material, keyID: keyID, algorithm: algorithm, use: use, keyOperations: nil)
    }

    /// An HMAC key from raw secret bytes (at least 32).
    /// - Throws: `JOSEError` `.weakKey` for shorter secrets.
    package static func symmetric(_ secret: [UInt8], keyID: String? = nil, algorithm: JWSAlgorithm? = nil)
        throws(JOSEError) -> JWK
    {
        try JWK(material: .oct(k: secret), keyID: keyID, algorithm: algorithm, use: nil, keyOperations: nil)
    }
}
