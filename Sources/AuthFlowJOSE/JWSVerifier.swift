/// Verifies compact JWS in a fixed order: size cap → split → strict base64url → header checks →
/// key chosen from the set (the algorithm must be allowed by the caller *and* fit the key) →
/// signature over the raw bytes. The header's `alg` never picks the key type on its own.
package struct JWSVerifier: Sendable {
    /// Header members that embed or point to a key; a token never supplies its own key.
    static let keyHeaders = ["jwk", "jku", "x5u", "x5c"]
    /// `crit` then ``keyHeaders``, looked for in one pass over the header.
    static let refusedHeaders = JSONObjectIndex.NameList(["crit"] + keyHeaders)

    /// The algorithms the caller accepts.
    package let allowedAlgorithms: Set<JWSAlgorithm>
    /// The size cap, in bytes of the compact serialization.
    package let maxTokenBytes: Int
    /// `allowedAlgorithms` as a bit set of ordinals, so the check does not hash.
    let allowedOrdinals: UInt32
    /// Whether a `jwk` header is let through (`jku`, `x5u`, `x5c` never are): only for a DPoP proof (RFC 9449
    /// §4.3), which is signed by the key its header carries, and only when the caller passes that key as the set.
    package var allowsEmbeddedJWK = false

    /// Creates a verifier for the given algorithms and size cap.
    package init(allowedAlgorithms: Set<JWSAlgorithm>, maxTokenBytes: Int = 16 * 1024) {
        self.allowedAlgorithms = allowedAlgorithms
        self.allowedOrdinals = allowedAlgorithms.reduce(0) { $0 | 1 << UInt32($1.ordinal) }
        self.maxTokenBytes = maxTokenBytes
    }

    /// Verifies `compact` against `keys`.
    /// - Returns: the header, the decoded payload and the key that verified it.
    /// - Throws: `JOSEError`: `.tokenTooLarge`, `.malformedToken`, `.invalidBase64URL`,
    ///   `.invalidJSON`, `.unsignedTokenNotAllowed`, `.unsupportedCriticalHeader`,
    ///   `.embeddedKeyRefused`, `.unsupportedAlgorithm`, `.algorithmNotAllowed`, `.keyNotFound`,
    ///   `.ambiguousKey`, `.keyMismatch`, `.weakKey`, `.invalidKey`, `.invalidSignature`.
    package func verify(_ compact: String, keys: JWKSet) throws(JOSEError) -> (
        header: JWSHeader, payload: [UInt8], key: JWK
    ) {
        try Self.withBytes(compact) { bytes throws(JOSEError) in try verify(bytes: bytes, keys: keys) }
    }

    @inline(__always)
    static func withBytes<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(JOSEError) -> T)
        throws(JOSEError) -> T
    {
        if let result = text.utf8.withContiguousStorageIfAvailable({ buffer in
            Result { () throws(JOSEError) in try body(buffer) }
        }) {
            return try result.get()
        }
        return try Array(text.utf8).withUnsafeBufferPointer { buffer throws(JOSEError) in try body(buffer) }
    }

    func verify(bytes: UnsafeBufferPointer<UInt8>, keys: JWKSet) throws(JOSEError) -> (
        header: JWSHeader, payload: [UInt8], key: JWK
    ) {
        guard bytes.count <= maxTokenBytes else {
            throw JOSEError(
                .tokenTooLarge, "expected a token of at most \(maxTokenBytes) bytes, found \(bytes.count) bytes")
        }
        let parts = try Self.split(bytes)
        let header = try Self.decodeHeader(parts.header)
        let payload = try Base64URL.decode(buffer: parts.payload)
        // The signature is decoded (and refused if malformed) before the header checks, as always,
        // but into temporary storage: only the check below reads it.
        let key = try Base64URL.withDecoded(buffer: parts.signature) { signature throws(JOSEError) -> JWK in
            let algorithm = try checkHeader(header)
            let key = try keys.key(keyID: header.keyID, algorithm: algorithm)
            let signingInput = UnsafeBufferPointer(rebasing: bytes[0..<parts.signingInputLength])
            guard key.verifySignature(signature, over: signingInput, algorithm: algorithm) else {
                throw JOSEError(
                    .invalidSignature,
                    "expected a valid \(algorithm.rawValue) signature, found one that does not verify",
                    keyID: header.keyID)
            }
            return key
        }
        return (header, payload, key)
    }

    /// Reads the header of a compact JWS without verifying anything (to look at `kid`).
    /// - Throws: `JOSEError` `.malformedToken`, `.invalidBase64URL`, `.invalidJSON`.
    package static func header(of compact: String) throws(JOSEError) -> JWSHeader {
        try withBytes(compact) { bytes throws(JOSEError) in try decodeHeader(try split(bytes).header) }
    }

    struct Parts {
        var header: UnsafeBufferPointer<UInt8>
        var payload: UnsafeBufferPointer<UInt8>
        var signature: UnsafeBufferPointer<UInt8>
        var signingInputLength: Int
    }

    static func split(_ bytes: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> Parts {
        let first = Self.indexOfDot(bytes, from: 0)
        let second = first < 0 ? -1 : Self.indexOfDot(bytes, from: first + 1)
        if second >= 0, Self.indexOfDot(bytes, from: second + 1) >= 0 {
            throw JOSEError(.malformedToken, "expected three dot-separated parts, found more")
        }
        guard second >= 0 else {
            throw JOSEError(.malformedToken, "expected three dot-separated parts, found \(first < 0 ? 1 : 2)")
        }
        guard first > 0 else {
            throw JOSEError(.malformedToken, "expected a non-empty header part, found an empty one")
        }
        return Parts(
            header: UnsafeBufferPointer(rebasing: bytes[0..<first]),
            payload: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second]),
            signature: UnsafeBufferPointer(rebasing: bytes[(second + 1)...]),
            signingInputLength: second)
    }

    /// The index of the next `.` at or after `start`, or -1; scans 8 bytes at a time.
    static func indexOfDot(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ (ones &* 0x2E)
                if (word &- ones) & ~word & (ones &* 0x80) != 0 { break }
                index += 8
            }
        }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ".") { return index }
            index += 1
        }
        return -1
    }

    static func decodeHeader(_ part: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> JWSHeader {
        try JWSHeader(bytes: try Base64URL.decode(buffer: part))
    }

    /// `none` in any letter case, without allocating.
    static func isNone(_ algorithm: String) -> Bool {
        let utf8 = algorithm.utf8
        guard utf8.count == 4 else { return false }
        return zip(utf8, "none".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Header rules that hold before any key is looked at; returns the algorithm to use.
    func checkHeader(_ header: JWSHeader) throws(JOSEError) -> JWSAlgorithm {
        if Self.isNone(header.algorithm) {
            throw JOSEError(.unsignedTokenNotAllowed, "expected a signed token, found alg none", keyID: header.keyID)
        }
        // Bit 0 is `crit`, bit 1 + i is keyHeaders[i]: refused in the same order as one lookup each.
        let refused = header.members.presence(of: Self.refusedHeaders)
        if refused & 1 != 0 {
            throw JOSEError(
                .unsupportedCriticalHeader, "expected no critical header extensions, found 'crit'", keyID: header.keyID)
        }
        for (offset, name) in Self.keyHeaders.enumerated()
        where refused & (2 << UInt64(offset)) != 0 && !(allowsEmbeddedJWK && name == "jwk") {
            throw JOSEError(
                .embeddedKeyRefused, "expected keys only from the configured key set, found a '\(name)' header",
                keyID: header.keyID)
        }
        guard let algorithm = JWSAlgorithm(rawValue: header.algorithm) else {
            throw JOSEError(
                .unsupportedAlgorithm,
                "expected a JWS algorithm AuthFlow implements, found '\(JWK.sanitized(header.algorithm))'",
                keyID: header.keyID)
        }
        guard allowedOrdinals & 1 << UInt32(algorithm.ordinal) != 0 else {
            let allowed = allowedAlgorithms.map(\.rawValue).sorted().joined(separator: ", ")
            throw JOSEError(
                .algorithmNotAllowed, "expected one of [\(allowed)], found \(algorithm.rawValue)", keyID: header.keyID)
        }
        return algorithm
    }
}
