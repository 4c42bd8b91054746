/// A JSON Web Key (RFC 7517): RSA, EC (P-256, P-384, P-521), OKP Ed25519, or an `oct` HMAC key.
///
/// Every initializer validates the key and refuses weak or inconsistent ones (RSA below 2048
/// bits, even exponents or `e = 1`, ROCA moduli, points not on their curve, private halves that
/// do not match the public half, HMAC keys shorter than their hash, `alg`/`kty`/`crv` that
/// disagree); a key generated here is OpenSSL's own pair, consistent by construction, and kept as generated. The
/// OpenSSL key is built once, here, and reused by every signature operation.
///
/// `description` never shows key material.
public struct JWK: Sendable, Hashable, CustomStringConvertible {
    /// `"RSA"`, `"EC"`, `"OKP"` or `"oct"`.
    public let keyType: String
    /// The `kid` member.
    public let keyID: String?
    /// The `alg` member, when present; the key is then usable with this algorithm only.
    package let algorithm: JWSAlgorithm?
    /// The `use` member (`"sig"` or `"enc"`), when present.
    package let use: String?
    /// The `key_ops` member, when present.
    package let keyOperations: [String]?

    let material: KeyMaterial
    let pkey: PKey?

    init(material: KeyMaterial, keyID: String?, algorithm: JWSAlgorithm?, use: String?, keyOperations: [String]?)
        throws(JOSEError)
    {
        self.keyType = material.keyType
        self.keyID = keyID
        self.algorithm = algorithm
        self.use = use
        self.keyOperations = keyOperations
        if let algorithm {
            try material.check(algorithm: algorithm, keyID: keyID)
        }
        self.pkey = try material.makeKey(keyID: keyID)
        self.material = material
    }

    /// A key pair OpenSSL has just generated, with `material` read from it. The key is kept as generated: it is
    /// neither rebuilt from `material` nor checked again, since a generated pair is consistent by construction
    /// (the point on the curve, the private part matching it); the checks of ``init(material:keyID:algorithm:use:keyOperations:)``
    /// are for keys from outside, and cost P-256 about six times its generation.
    init(generated pkey: PKey, material: KeyMaterial, keyID: String?) {
        self.keyType = material.keyType
        self.keyID = keyID
        self.algorithm = nil
        self.use = nil
        self.keyOperations = nil
        self.material = material
        self.pkey = pkey
    }

    private init(copying key: JWK, material: KeyMaterial, pkey: PKey?) {
        self.keyType = key.keyType
        self.keyID = key.keyID
        self.algorithm = key.algorithm
        self.use = key.use
        self.keyOperations = key.keyOperations
        self.material = material
        self.pkey = pkey
    }

    /// Whether the key holds private (or secret) material and can sign.
    package var isPrivate: Bool { material.isPrivate }

    /// The same key without its private parts. Symmetric keys have no public half and are
    /// returned unchanged.
    public var publicKey: JWK {
        guard isPrivate, material.keyType != "oct" else { return self }
        let publicMaterial = material.publicOnly
        let key = try? publicMaterial.makeKey(keyID: keyID)
        return JWK(copying: self, material: publicMaterial, pkey: key ?? pkey)
    }

    /// The algorithm this key signs with by default: its `alg`, else RS256 for RSA, ES256/384/512
    /// by curve, EdDSA for Ed25519, HS256 for `oct`.
    package var defaultAlgorithm: JWSAlgorithm {
        if let algorithm { return algorithm }
        switch material {
        case .rsa: return .rs256
        case .ec(let curve, _, _, _): return curve.algorithm
        case .ed25519: return .edDSA
        case .oct: return .hs256
        }
    }

    /// `JWK(kty: EC, kid: …, alg: …, private)`, never the key material.
    public var description: String {
        var parts = ["kty: \(keyType)"]
        if case .ec(let curve, _, _, _) = material { parts.append("crv: \(curve.rawValue)") }
        if case .ed25519 = material { parts.append("crv: Ed25519") }
        if let keyID { parts.append("kid: \(keyID)") }
        if let algorithm { parts.append("alg: \(algorithm.rawValue)") }
        if isPrivate { parts.append(keyType == "oct" ? "secret" : "private") }
        return "JWK(" + parts.joined(separator: ", ") + ")"
    }

    /// Keys are equal when their members and key material are equal.
    public static func == (lhs: JWK, rhs: JWK) -> Bool {
        lhs.keyID == rhs.keyID && lhs.algorithm == rhs.algorithm && lhs.use == rhs.use
            && lhs.keyOperations == rhs.keyOperations && lhs.material == rhs.material
    }

    /// Hashes the members and key material.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyID)
        hasher.combine(algorithm)
        hasher.combine(use)
        hasher.combine(material)
    }

    /// Whether the algorithm can be used with this key at all (type, curve, `alg` member).
    func permits(_ algorithm: JWSAlgorithm) -> Bool {
        if let own = self.algorithm, own != algorithm { return false }
        return (try? material.check(algorithm: algorithm, keyID: keyID)) != nil
    }

    /// Whether the key may be used to verify signatures according to `use` and `key_ops`.
    var isUsableForVerification: Bool {
        if let use, use != "sig" { return false }
        if let keyOperations, !keyOperations.contains("verify") { return false }
        return true
    }

    var isUsableForSigning: Bool {
        if let use, use != "sig" { return false }
        if let keyOperations, !keyOperations.contains("sign") { return false }
        return isPrivate
    }
}
