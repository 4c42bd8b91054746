/// Producing signed JWTs (RFC 7519): a JSON claims object as the payload of a compact JWS.
public enum JWT {
    /// Serializes `claims` (compact, members sorted) and signs them; the header gets `typ: JWT`.
    /// - Throws: `JOSEError` as ``JWS/sign(payload:key:algorithm:extraHeader:)``.
    public static func sign(
        claims: [String: JSONValue], key: JWK, algorithm: JWSAlgorithm? = nil,
        extraHeader: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        // Serialized straight from the dictionary into one buffer, which is signed in place.
        var payload = ByteWriter(capacity: 1024)
        JSONValue.write(object: claims, to: &payload)
        return try payload.withBytes { bytes throws(JOSEError) in
            try JWS.sign(
                payloadBytes: bytes, key: key, algorithm: algorithm, headerKeyID: key.keyID, extraHeader: extraHeader,
                defaultType: "JWT")
        }
    }
}
