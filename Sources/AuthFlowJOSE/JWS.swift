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

    /// As the public `sign`, with the header's `kid` given explicitly (nil leaves it out) and a
    /// `typ` used when `extraHeader` has none.
    static func sign(
        payload: some Collection<UInt8>, key: JWK, algorithm: JWSAlgorithm?, headerKeyID: String?,
        extraHeader: [String: JSONValue], defaultType: String? = nil
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

        // The header object is written from a list: `extraHeader` without `alg` and `kid`, then
        // those two (and the default `typ`), sorted as any object is, so no dictionary is rebuilt.
        var members: [(UInt64, String, JSONValue)] = []
        members.reserveCapacity(extraHeader.count + 3)
        for (name, value) in extraHeader where name != "alg" && name != "kid" {
            members.append((JSONValue.sortPrefix(name), name, value))
        }
        if let defaultType, extraHeader["typ"] == nil {
            members.append((JSONValue.sortPrefix("typ"), "typ", .string(defaultType)))
        }
        members.append((JSONValue.sortPrefix("alg"), "alg", .string(algorithm.rawValue)))
        if let headerKeyID { members.append((JSONValue.sortPrefix("kid"), "kid", .string(headerKeyID))) }
        JSONValue.sortMembers(&members)
        var headerBytes: [UInt8] = []
        headerBytes.reserveCapacity(128)
        JSONValue.serialize(sortedMembers: members, into: &headerBytes)

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
