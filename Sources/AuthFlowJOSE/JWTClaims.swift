/// The claims of a JWT payload, with typed accessors for the registered claims.
///
/// Reading claims is separate from checking them: see ``ClaimChecks``.
public struct JWTClaims: Sendable {
    /// Where the claims live: a verified payload, indexed and decoded member by member on use, or
    /// a dictionary given by the caller.
    enum Storage: Sendable {
        case indexed(JSONObjectIndex)
        case dictionary([String: JSONValue])
    }

    let storage: Storage

    /// Every claim. For parsed claims the dictionary is built on each use: read it once.
    public var json: [String: JSONValue] {
        switch storage {
        case .indexed(let index): index.dictionary()
        case .dictionary(let members): members
        }
    }

    /// Parses a payload that must be a JSON object. The whole payload is validated now; each
    /// claim's value is decoded when it is read.
    /// - Throws: `JOSEError` `.invalidJSON` when it is not JSON or not an object.
    package init(payload: some Collection<UInt8>) throws(JOSEError) {
        guard
            let index = try JOSEError.parsingJSON({ () throws(JSONError) in try JSONObjectIndex.index(Array(payload)) })
        else {
            throw JOSEError(.invalidJSON, "expected the JWT payload to be a JSON object")
        }
        self.storage = .indexed(index)
    }

    /// Wraps claims already in memory (e.g. to sign them).
    public init(json: [String: JSONValue]) { self.storage = .dictionary(json) }

    /// `iss`, when a string.
    public var issuer: String? { string("iss") }
    /// `sub`, when a string.
    public var subject: String? { string("sub") }
    /// `aud` as a list: a single string becomes one element; other shapes give `[]`.
    package var audience: [String] {
        switch self["aud"] {
        case .string(let value)?: return [value]
        case .array(let values)?: return values.compactMap(\.stringValue)
        default: return []
        }
    }
    /// `azp`, when a string.
    package var authorizedParty: String? { string("azp") }
    /// `nonce`, when a string.
    package var nonce: String? { string("nonce") }
    /// `exp` in seconds since 1970 (fractions dropped), when a number.
    package var expiresAt: Int64? { numericDate("exp") }
    /// `nbf` in seconds since 1970 (fractions dropped), when a number.
    package var notBefore: Int64? { numericDate("nbf") }
    /// `iat` in seconds since 1970 (fractions dropped), when a number.
    package var issuedAt: Int64? { numericDate("iat") }

    /// Calls `body` with the UTF-8 bytes of a string claim of a parsed payload written without
    /// escapes or non-ASCII bytes, without building the string; `nil` in every other case.
    func withPlainString<Result>(_ claim: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard case .indexed(let index) = storage else { return nil }
        return index.withPlainString(claim, body)
    }

    /// An integer claim of a parsed payload written with at most 18 digits and no fraction or
    /// exponent, read in place; `nil` in every other case (then read it through the subscript).
    func plainInteger(_ claim: String) -> Int64? {
        guard case .indexed(let index) = storage else { return nil }
        return index.plainInteger(claim)
    }

    /// Any claim.
    public subscript(claim: String) -> JSONValue? {
        switch storage {
        case .indexed(let index): index.value(claim)
        case .dictionary(let members): members[claim]
        }
    }

    /// A claim's string value.
    public func string(_ claim: String) -> String? { self[claim]?.stringValue }

    /// A boolean claim that may arrive as JSON `true`/`false` or as the strings `"true"`/`"false"`
    /// (Apple sends `email_verified` both ways).
    public func flag(_ claim: String) -> Bool? {
        switch self[claim] {
        case .bool(let value)?: return value
        case .string("true")?: return true
        case .string("false")?: return false
        default: return nil
        }
    }

    func numericDate(_ claim: String) -> Int64? {
        switch self[claim] {
        case .integer(let value)?: return value
        case .double(let value)? where value.isFinite && abs(value) < 9.0e18: return Int64(value.rounded(.down))
        default: return nil
        }
    }
}
