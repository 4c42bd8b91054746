/// Producing signed JWTs (RFC 7519): a JSON claims object as the payload of a compact JWS.
public enum JWT {
    /// Serializes `claims` (compact, members sorted) and signs them; the header gets `typ: JWT`.
    /// - Throws: `JOSEError` as ``JWS/sign(payload:key:algorithm:extraHeader:)``.
    public static func sign(
        claims: [String: JSONValue], key: JWK, algorithm: JWSAlgorithm? = nil,
        extraHeader: [String: JSONValue] = [:]
    ) throws(JOSEError) -> String {
        try JWS.sign(
            payload: JSONValue.object(claims).serializedBytes(), key: key, algorithm: algorithm,
            headerKeyID: key.keyID, extraHeader: extraHeader, defaultType: "JWT")
    }
}
