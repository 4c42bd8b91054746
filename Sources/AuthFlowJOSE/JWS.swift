/// Producing compact JWS (RFC 7515 §7.1).
public enum JWS {
    /// Signs `payload` and returns `header.payload.signature`.
    ///
    /// The header gets `alg` (the argument, else the key's own `alg` or the one its type implies), `kid` when
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
        if let result = payload.withContiguousStorageIfAvailable({ bytes in
            Result { () throws(JOSEError) in
                try sign(
                    payloadBytes: bytes, key: key, algorithm: algorithm, headerKeyID: headerKeyID,
                    extraHeader: extraHeader, defaultType: defaultType)
            }
        }) {
            return try result.get()
        }
        return try Array(payload).withUnsafeBufferPointer { bytes throws(JOSEError) in
            try sign(
                payloadBytes: bytes, key: key, algorithm: algorithm, headerKeyID: headerKeyID,
                extraHeader: extraHeader, defaultType: defaultType)
        }
    }

    /// As ``sign(payload:key:algorithm:headerKeyID:extraHeader:defaultType:)``: the header, the
    /// signing input and the signature are written into one buffer, which becomes the string.
    static func sign(
        payloadBytes payload: UnsafeBufferPointer<UInt8>, key: JWK, algorithm: JWSAlgorithm?, headerKeyID: String?,
        extraHeader: [String: JSONValue], defaultType: String?
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

        var header = ByteWriter(capacity: 128)
        writeHeader(
            to: &header, algorithm: algorithm, headerKeyID: headerKeyID, extraHeader: extraHeader,
            defaultType: defaultType)

        // Room for the largest signature (RSA 4096) so the buffer never grows.
        var output = ByteWriter(
            capacity: Base64URL.encodedLength(header.count) + Base64URL.encodedLength(payload.count) + 2 + 700)
        header.withBytes { Base64URL.append($0, to: &output) }
        output.append(UInt8(ascii: "."))
        Base64URL.append(payload, to: &output)
        let signature = try output.withBytes { input throws(JOSEError) in
            try key.signature(over: input, algorithm: algorithm)
        }
        output.append(UInt8(ascii: "."))
        signature.withUnsafeBufferPointer { Base64URL.append($0, to: &output) }
        return output.string
    }

    /// Writes the protected header: `alg`, `kid` and `typ`, with `extraHeader`'s members when there are any.
    static func writeHeader(
        to header: inout ByteWriter, algorithm: JWSAlgorithm, headerKeyID: String?, extraHeader: [String: JSONValue],
        defaultType: String?
    ) {
        guard extraHeader.isEmpty else {
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
            JSONValue.write(sortedMembers: members, to: &header)
            return
        }
        // `alg`, `kid`, `typ` are already in byte order: written as the sorted list above would be.
        header.append("{\"alg\":")
        JSONValue.write(string: algorithm.rawValue, to: &header)
        if let headerKeyID {
            header.append(",\"kid\":")
            JSONValue.write(string: headerKeyID, to: &header)
        }
        if let defaultType {
            header.append(",\"typ\":")
            JSONValue.write(string: defaultType, to: &header)
        }
        header.append(UInt8(ascii: "}"))
    }
}
