extension JWK {
    /// Reads an unencrypted PKCS#8 PEM private key (Apple's `.p8` EC P-256 keys; also RSA and
    /// Ed25519) and validates it like a JWK.
    /// - Throws: `JOSEError` `.invalidKey` when the text is not an unencrypted private key of a
    ///   supported type; `.weakKey` as for JWKs.
    public init(pkcs8PEM: String, keyID: String? = nil) throws(JOSEError) {
        guard let key = PKey.fromPEM(Array(pkcs8PEM.utf8)) else {
            throw JOSEError(
                .invalidKey,
                "expected an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----), found something OpenSSL cannot read",
                keyID: keyID)
        }
        try self.init(pkey: key, keyID: keyID)
    }

    /// Builds a validated JWK from an OpenSSL key (read from PEM or freshly generated).
    init(pkey key: PKey, keyID: String?) throws(JOSEError) {
        let material: KeyMaterial
        switch key.kind {
        case .rsa:
            guard let (n, e, parts) = key.rsaComponents() else {
                throw JOSEError(.invalidKey, "expected an RSA key with readable components", keyID: keyID)
            }
            material = .rsa(n: n, e: e, privateParts: parts)
        case .ec:
            guard let curve = key.curve else {
                throw JOSEError(
                    .invalidKey, "expected an EC key on P-256, P-384 or P-521, found another curve", keyID: keyID)
            }
            guard let (x, y, d) = key.ecComponents(curve: curve) else {
                throw JOSEError(.invalidKey, "expected an EC key with readable components", keyID: keyID)
            }
            material = .ec(curve: curve, x: x, y: y, d: d)
        case .ed25519:
            guard let x = key.rawPublicKey else {
                throw JOSEError(.invalidKey, "expected an Ed25519 key with a readable public key", keyID: keyID)
            }
            material = .ed25519(x: x, d: key.rawPrivateKey)
        case .other:
            throw JOSEError(.invalidKey, "expected an RSA, EC or Ed25519 key, found another key type", keyID: keyID)
        }
        try self.init(material: material, keyID: keyID, algorithm: nil, use: nil, keyOperations: nil)
    }

    /// The private key as unencrypted PKCS#8 PEM (for sandbox and test key files).
    /// - Throws: `JOSEError` `.invalidKey` for public or symmetric keys; `.cryptoFailure` if
    ///   OpenSSL cannot write it.
    package func pkcs8PEM() throws(JOSEError) -> String {
        guard isPrivate, keyType != "oct", let pkey else {
            throw JOSEError(
                .invalidKey,
                "expected a private RSA, EC or Ed25519 key to export, found \(isPrivate ? "a symmetric key" : "a public key")",
                keyID: keyID)
        }
        guard let pem = pkey.pkcs8PEM() else {
            throw JOSEError(.cryptoFailure, "expected OpenSSL to write the PKCS#8 key, it failed", keyID: keyID)
        }
        return pem
    }
}
