/// Producing compact JWS (RFC 7515 §7.1).
public enum JWS {
    /// Signs `payload` and returns `header.payload.signature`.
    ///
    /// The header gets `alg` (the argument, else the key's ``JWK/defaultAlgorithm``), `kid` when
    /// the key has one, plus `extraHeader` (which cannot override `alg` or `kid`).
    /// - Throws: `JOSEError` `.invalidKey` for a public key; `.keyMismatch` when the algorithm
    ///   does not fit the key or the key's `use`/`key_ops` forbid signing; `.cryptoFailure` if
    ///   OpenSSL fails.
    public static func sign(
        payload: some Collection<UInt8>, key: JWK, algorithm: JWSAlgorithm? = nil,
        extraHeader: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        try sign(payload: payload, key: key, algorithm: algorithm, headerKeyID: key.keyID, extraHeader: extraHeader)
    }

    /// As the public `sign`, with the header's `kid` given explicitly (nil leaves it out).
    static func sign(
        payload: some Collection<UInt8>, key: JWK, algorithm: JWSAlgorithm?, headerKeyID: String?,
        extraHeader: [String: JSONValue]
    ) throws(JOSEError) -> String {
        guard key.isPrivate else {
            throw JOSEError(.invalidKey, "expected a private key to sign with, found a public key", keyID: key.keyID)
        }
        guard key.isUsableForSigning else {
            throw JOSEError(.keyMismatch, "expected a key whose use/key_ops allow signing", keyID: key.keyID)
        }
        let algorithm = algorithm ?? key.defaultAlgorithm
        if let own = key.algorithm, own != algorithm {
            throw JOSEError(
                .keyMismatch, "expected \(own.rawValue) for this key, found \(algorithm.rawValue)", keyID: key.keyID)
        }
        try key.material.check(algorithm: algorithm, keyID: key.keyID)

        var header = extraHeader
        header["alg"] = .string(algorithm.rawValue)
        if let headerKeyID { header["kid"] = .string(headerKeyID) } else { header["kid"] = nil }
        let headerBytes = JSONValue.object(header).serializedBytes()

        var signingInput: [UInt8] = []
        signingInput.reserveCapacity(
            Base64URL.encodedLength(headerBytes.count) + Base64URL.encodedLength(payload.count) + 100)
        headerBytes.withUnsafeBufferPointer { Base64URL.append($0, to: &signingInput) }
        signingInput.append(UInt8(ascii: "."))
        if let done: Void = payload.withContiguousStorageIfAvailable({ Base64URL.append($0, to: &signingInput) }) {
            _ = done
        } else {
            Array(payload).withUnsafeBufferPointer { Base64URL.append($0, to: &signingInput) }
        }
        let signature = try signingInput.withUnsafeBufferPointer { input throws(JOSEError) in
            try key.signature(over: input, algorithm: algorithm)
        }
        signingInput.append(UInt8(ascii: "."))
        signature.withUnsafeBufferPointer { Base64URL.append($0, to: &signingInput) }
        return String(decoding: signingInput, as: UTF8.self)
    }
}
