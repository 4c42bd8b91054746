/// The claims of a JWT payload, with typed accessors for the registered claims.
///
/// Reading claims is separate from checking them: see ``ClaimChecks``.
public struct JWTClaims: Sendable {
    /// Every claim.
    public let json: [String: JSONValue]

    /// Parses a payload that must be a JSON object.
    /// - Throws: `JOSEError` `.invalidJSON` when it is not JSON or not an object.
    public init(payload: some Collection<UInt8>) throws(JOSEError) {
        guard case .object(let members) = try JSONValue.parse(payload) else {
            throw JOSEError(.invalidJSON, "expected the JWT payload to be a JSON object")
        }
        self.json = members
    }

    /// Wraps claims already in memory (e.g. to sign them).
    public init(json: [String: JSONValue]) { self.json = json }

    /// `iss`, when a string.
    public var issuer: String? { string("iss") }
    /// `sub`, when a string.
    public var subject: String? { string("sub") }
    /// `aud` as a list: a single string becomes one element; other shapes give `[]`.
    public var audience: [String] {
        switch json["aud"] {
        case .string(let value)?: return [value]
        case .array(let values)?: return values.compactMap(\.stringValue)
        default: return []
        }
    }
    /// `azp`, when a string.
    public var authorizedParty: String? { string("azp") }
    /// `nonce`, when a string.
    public var nonce: String? { string("nonce") }
    /// `exp` in seconds since 1970 (fractions dropped), when a number.
    public var expiresAt: Int64? { numericDate("exp") }
    /// `nbf` in seconds since 1970 (fractions dropped), when a number.
    public var notBefore: Int64? { numericDate("nbf") }
    /// `iat` in seconds since 1970 (fractions dropped), when a number.
    public var issuedAt: Int64? { numericDate("iat") }

    /// Any claim.
    public subscript(claim: String) -> JSONValue? { json[claim] }

    /// A claim's string value.
    public func string(_ claim: String) -> String? { json[claim]?.stringValue }

    /// A boolean claim that may arrive as JSON `true`/`false` or as the strings `"true"`/`"false"`
    /// (Apple sends `email_verified` both ways).
    public func flag(_ claim: String) -> Bool? {
        switch json[claim] {
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: return nil
        }
    }

    func numericDate(_ claim: String) -> Int64? {
        switch json[claim] {
        case .integer(let value)?: return value
        case .double(let value)? where value.isFinite && abs(value) < 9.0e18: return Int64(value.rounded(.down))
        default: return nil
        }
    }
}
