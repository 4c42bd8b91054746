/// The protected header of a compact JWS, as parsed (before any key is trusted).
package struct JWSHeader: Sendable {
    /// The `alg` member, verbatim.
    package let algorithm: String
    /// The `kid` member.
    package let keyID: String?
    /// The `typ` member.
    package let type: String?
    /// The parsed header, decoded member by member on use.
    let members: JSONObjectIndex

    /// Every member. The dictionary is built on each use: read it once.
    package var json: [String: JSONValue] { members.dictionary() }

    /// Reads a decoded header.
    /// - Throws: `JOSEError` `.invalidJSON` when it is not a JSON object; `.malformedToken` when
    ///   `alg` is missing or `alg`, `kid`, `typ` are not strings.
    init(bytes: [UInt8]) throws(JOSEError) {
        guard let members = try JOSEError.parsingJSON({ () throws(JSONError) in try JSONObjectIndex.index(bytes) })
        else {
            throw JOSEError(.invalidJSON, "expected the JWS header to be a JSON object")
        }
        guard case .string(let algorithm) = members.stringMember("alg") else {
            throw JOSEError(.malformedToken, "expected the JWS header to have a string 'alg'")
        }
        var keyID: String? = nil
        switch members.stringMember("kid") {
        case .absent: break
        case .string(let text): keyID = text
        case .other: throw JOSEError(.malformedToken, "expected 'kid' to be a string")
        }
        var type: String? = nil
        switch members.stringMember("typ") {
        case .absent: break
        case .string(let text): type = text
        case .other: throw JOSEError(.malformedToken, "expected 'typ' to be a string")
        }
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.members = members
    }
}
