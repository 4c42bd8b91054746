/// The one error type of AuthFlowJOSE: a stable ``Code`` to switch on, a message that says what
/// was expected and what was found, and the claim or key id it concerns.
///
/// Messages never contain a token, a signature, a secret or key material.
public struct JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's snake_case text, e.g. `"invalid_signature"`.
        public let rawValue: String
        /// Wraps a code's text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// The compact serialization does not have three dot-separated parts, or a part is empty.
        public static let malformedToken = Code(rawValue: "malformed_token")
        /// The token is longer than the verifier's size cap.
        public static let tokenTooLarge = Code(rawValue: "token_too_large")
        /// Text is not strict unpadded base64url.
        public static let invalidBase64URL = Code(rawValue: "invalid_base64url")
        /// Bytes are not valid JSON, or not the JSON shape expected (e.g. an object).
        public static let invalidJSON = Code(rawValue: "invalid_json")
        /// The algorithm is not one AuthFlow implements.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupported_algorithm")
        /// The algorithm is implemented but not in the caller's allow-list.
        public static let algorithmNotAllowed = Code(rawValue: "algorithm_not_allowed")
        /// The token says `alg: none`.
        public static let unsignedTokenNotAllowed = Code(rawValue: "unsigned_token_not_allowed")
        /// The signature does not verify.
        public static let invalidSignature = Code(rawValue: "invalid_signature")
        /// No key in the set fits the token (unknown `kid`, or no key of the right type).
        public static let keyNotFound = Code(rawValue: "key_not_found")
        /// Several keys fit a token without `kid`, or a `kid` is used twice in a set.
        public static let ambiguousKey = Code(rawValue: "ambiguous_key")
        /// A key is malformed (missing or mistyped members, a point not on its curve, ...).
        public static let invalidKey = Code(rawValue: "invalid_key")
        /// A key is well formed but too weak (short RSA modulus, bad exponent, short HMAC key, ROCA).
        public static let weakKey = Code(rawValue: "weak_key")
        /// A key's `kty`, `crv`, `alg`, `use` or `key_ops` do not fit each other or the token.
        public static let keyMismatch = Code(rawValue: "key_mismatch")
        /// The header lists a `crit` extension AuthFlow does not understand.
        public static let unsupportedCriticalHeader = Code(rawValue: "unsupported_critical_header")
        /// The header embeds or points to a key (`jwk`, `jku`, `x5u`, `x5c`).
        public static let embeddedKeyRefused = Code(rawValue: "embedded_key_refused")
        /// A required claim is absent.
        public static let missingClaim = Code(rawValue: "missing_claim")
        /// A claim has the wrong JSON type or an impossible value.
        public static let invalidClaim = Code(rawValue: "invalid_claim")
        /// `iss` is not one of the expected issuers.
        public static let issuerMismatch = Code(rawValue: "issuer_mismatch")
        /// `aud` does not contain a configured audience.
        public static let audienceMismatch = Code(rawValue: "audience_mismatch")
        /// `azp` is not a configured audience although `aud` has several values.
        public static let authorizedPartyMismatch = Code(rawValue: "authorized_party_mismatch")
        /// `exp` (plus leeway) has passed.
        public static let tokenExpired = Code(rawValue: "token_expired")
        /// `nbf` (minus leeway) is still in the future.
        public static let tokenNotYetValid = Code(rawValue: "token_not_yet_valid")
        /// `iat` is further in the future than the leeway allows.
        public static let issuedInFuture = Code(rawValue: "issued_in_future")
        /// `nonce` differs from the expected one.
        public static let nonceMismatch = Code(rawValue: "nonce_mismatch")
        /// The JWKS endpoint failed and no earlier key set is available.
        public static let jwksUnavailable = Code(rawValue: "jwks_unavailable")
        /// OpenSSL failed in a way the input does not explain.
        public static let cryptoFailure = Code(rawValue: "crypto_failure")
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// What was expected and what was found; never a secret.
    public let message: String
    /// The claim concerned, when a claim check failed.
    public var claim: String?
    /// The key id concerned, when key selection or key parsing failed.
    public var keyID: String?

    /// Creates an error; keep `message` free of secrets, tokens and key material.
    public init(_ code: Code, _ message: String, claim: String? = nil, keyID: String? = nil) {
        self.code = code
        self.message = message
        self.claim = claim
        self.keyID = keyID
    }

    /// `code: message (claim: …, kid: …)`.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        var context: [String] = []
        if let claim { context.append("claim: \(claim)") }
        if let keyID { context.append("kid: \(keyID)") }
        if !context.isEmpty { text += " (" + context.joined(separator: ", ") + ")" }
        return text
    }

    func withKeyID(_ keyID: String?) -> JOSEError {
        var copy = self
        if copy.keyID == nil { copy.keyID = keyID }
        return copy
    }
}
