/// A JWK Set (RFC 7517 §5) with key selection by `kid`.
///
/// Parsing skips keys it cannot use (unknown `kty`, unsupported curve or `alg`, weak or
/// malformed keys) and remembers why, so a token naming a skipped key gets the real reason
/// (e.g. `.weakKey`) rather than `.keyNotFound`. Sets that reuse a `kid` or mix symmetric with
/// asymmetric keys are refused.
public struct JWKSet: Sendable {
    /// The usable keys, in document order.
    public let keys: [JWK]
    /// Why each skipped key was skipped (`keyID` set when the key had a `kid`).
    package let skippedKeys: [JOSEError]

    let indexByKeyID: [String: Int]
    let duplicateKeyIDs: Set<String>
    let hasSymmetricKeys: Bool
    let hasAsymmetricKeys: Bool
    /// The `max-age` the set was served with, when it came through ``JWKSCache``.
    var maxAge: Int? = nil

    /// A set of already validated keys. Duplicate `kid`s and a mix of symmetric and asymmetric
    /// keys are not refused here but make verification fail (`.ambiguousKey`, `.invalidKey`).
    public init(keys: [JWK]) {
        self.init(keys: keys, skipped: [])
    }

    init(keys: [JWK], skipped: [JOSEError]) {
        var index: [String: Int] = [:]
        var duplicates: Set<String> = []
        for (position, key) in keys.enumerated() {
            guard let keyID = key.keyID else { continue }
            if index[keyID] != nil { duplicates.insert(keyID) } else { index[keyID] = position }
        }
        self.keys = keys
        self.skippedKeys = skipped
        self.indexByKeyID = index
        self.duplicateKeyIDs = duplicates
        self.hasSymmetricKeys = keys.contains { $0.keyType == "oct" }
        self.hasAsymmetricKeys = keys.contains { $0.keyType != "oct" }
    }

    /// Parses a JWK Set document `{"keys": [...]}`.
    /// - Throws: `JOSEError` `.invalidJSON` when the document is not JSON or has no `keys`
    ///   array; `.ambiguousKey` when two usable keys share a `kid`; `.invalidKey` when symmetric
    ///   and asymmetric keys are mixed.
    public init(jsonData: some Collection<UInt8>) throws(JOSEError) {
        try self.init(
            json: try JOSEError.parsingJSON { () throws(JSONError) in try JSONValue.parse(jsonData) },
            publicKeysOnly: false)
    }

    /// Parses a JWK Set; with `publicKeysOnly` (remote JWKS), `oct` keys are skipped and private
    /// members are dropped.
    init(json: JSONValue, publicKeysOnly: Bool) throws(JOSEError) {
        guard let entries = json["keys"]?.arrayValue else {
            throw JOSEError(.invalidJSON, "expected a JWK Set object with a 'keys' array")
        }
        var seenKeyIDs: Set<String> = []
        for entry in entries {
            // A kid used twice is ambiguous even when one of the keys would be skipped.
            if let keyID = entry["kid"]?.stringValue, !seenKeyIDs.insert(keyID).inserted {
                throw JOSEError(
                    .ambiguousKey, "expected each kid once in the key set, found it several times", keyID: keyID)
            }
        }
        var keys: [JWK] = []
        var skipped: [JOSEError] = []
        for entry in entries {
            do throws(JOSEError) {
                var key = try JWK(json: entry)
                if publicKeysOnly {
                    guard key.keyType != "oct" else {
                        throw JOSEError(
                            .keyMismatch, "expected only public keys in a remote JWK Set, found a symmetric key",
                            keyID: key.keyID)
                    }
                    key = key.publicKey
                }
                keys.append(key)
            } catch {
                skipped.append(error.withKeyID(entry["kid"]?.stringValue))
            }
        }
        self.init(keys: keys, skipped: skipped)
        if hasSymmetricKeys && hasAsymmetricKeys {
            throw JOSEError(.invalidKey, "expected a key set of only symmetric or only asymmetric keys, found both")
        }
    }

    /// The set as JSON with public members only; symmetric keys are left out.
    package func jsonValue() -> JSONValue {
        .object(["keys": .array(keys.filter { $0.keyType != "oct" }.map { $0.jsonValue() })])
    }

    /// Chooses the key for a token: by `kid` when the header has one, else the single key whose
    /// type fits the algorithm. Several fitting keys without a `kid` are refused as ambiguous
    /// rather than tried one after another (bounded work, deterministic result).
    func key(keyID: String?, algorithm: JWSAlgorithm) throws(JOSEError) -> JWK {
        if hasSymmetricKeys && hasAsymmetricKeys {
            throw JOSEError(.invalidKey, "expected a key set of only symmetric or only asymmetric keys, found both")
        }
        if algorithm.isHMAC && hasAsymmetricKeys {
            throw JOSEError(
                .keyMismatch, "expected an asymmetric algorithm for a public-key set, found \(algorithm.rawValue)",
                keyID: keyID)
        }
        let key: JWK
        if let keyID {
            if duplicateKeyIDs.contains(keyID) {
                throw JOSEError(.ambiguousKey, "expected one key with this kid, found several", keyID: keyID)
            }
            guard let position = indexByKeyID[keyID] else {
                if let reason = skippedKeys.first(where: { $0.keyID == keyID }) { throw reason }
                throw JOSEError(
                    .keyNotFound, "expected a key with the token's kid in the key set, found none", keyID: keyID)
            }
            key = keys[position]
        } else {
            var found: JWK? = nil
            for candidate in keys where candidate.isUsableForVerification && candidate.permits(algorithm) {
                if found != nil {
                    throw JOSEError(
                        .ambiguousKey,
                        "expected one key fitting \(algorithm.rawValue) for a token without kid, found several")
                }
                found = candidate
            }
            guard let found else {
                throw JOSEError(
                    .keyNotFound, "expected a key fitting \(algorithm.rawValue) for a token without kid, found none")
            }
            key = found
        }
        guard key.isUsableForVerification else {
            throw JOSEError(.keyMismatch, "expected a key whose use/key_ops allow verification", keyID: keyID)
        }
        if let own = key.algorithm, own != algorithm {
            throw JOSEError(
                .keyMismatch, "expected \(own.rawValue) for this key, found \(algorithm.rawValue) in the token",
                keyID: keyID)
        }
        try key.material.check(algorithm: algorithm, keyID: keyID)
        return key
    }
}
