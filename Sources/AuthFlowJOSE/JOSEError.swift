/// The one error type of AuthFlowJOSE: a stable ``Code`` to switch on, a message that says what
/// was expected and what was found, and the claim or key id it concerns.
///
/// Messages never contain a token, a signature, a secret or key material.
public struct JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text, e.g. `"invalidSignature"`.
        public let rawValue: String
        /// Wraps a code's text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// The compact serialization does not have three dot-separated parts, or a part is empty.
        public static let malformedToken = Code(rawValue: "malformedToken")
        /// The token is longer than the verifier's size cap.
        public static let tokenTooLarge = Code(rawValue: "tokenTooLarge")
        /// Text is not strict unpadded base64url.
        public static let invalidBase64URL = Code(rawValue: "invalidBase64URL")
        /// Bytes are not valid JSON, or not the JSON shape expected (e.g. an object).
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// The algorithm is not one AuthFlow implements.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// The algorithm is implemented but not in the caller's allow-list.
        public static let algorithmNotAllowed = Code(rawValue: "algorithmNotAllowed")
        /// The token says `alg: none`.
        public static let unsignedTokenNotAllowed = Code(rawValue: "unsignedTokenNotAllowed")
        /// The signature does not verify.
        public static let invalidSignature = Code(rawValue: "invalidSignature")
        /// No key in the set fits the token (unknown `kid`, or no key of the right type).
        public static let keyNotFound = Code(rawValue: "keyNotFound")
        /// Several keys fit a token without `kid`, or a `kid` is used twice in a set.
        public static let ambiguousKey = Code(rawValue: "ambiguousKey")
        /// A key is malformed (missing or mistyped members, a point not on its curve, ...).
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// A key is well formed but too weak (short RSA modulus, bad exponent, short HMAC key, ROCA).
        public static let weakKey = Code(rawValue: "weakKey")
        /// A key's `kty`, `crv`, `alg`, `use` or `key_ops` do not fit each other or the token.
        public static let keyMismatch = Code(rawValue: "keyMismatch")
        /// The header lists a `crit` extension AuthFlow does not understand.
        public static let unsupportedCriticalHeader = Code(rawValue: "unsupportedCriticalHeader")
        /// The header embeds or points to a key (`jwk`, `jku`, `x5u`, `x5c`).
        public static let embeddedKeyRefused = Code(rawValue: "embeddedKeyRefused")
        /// A required claim is absent.
        public static let missingClaim = Code(rawValue: "missingClaim")
        /// A claim has the wrong JSON type or an impossible value.
        public static let invalidClaim = Code(rawValue: "invalidClaim")
        /// `iss` is not one of the expected issuers.
        public static let issuerMismatch = Code(rawValue: "issuerMismatch")
        /// `aud` does not contain a configured audience.
        public static let audienceMismatch = Code(rawValue: "audienceMismatch")
        /// `azp` is not a configured audience although `aud` has several values.
        public static let authorizedPartyMismatch = Code(rawValue: "authorizedPartyMismatch")
        /// `exp` (plus leeway) has passed.
        public static let tokenExpired = Code(rawValue: "tokenExpired")
        /// `nbf` (minus leeway) is still in the future.
        public static let tokenNotYetValid = Code(rawValue: "tokenNotYetValid")
        /// `iat` is further in the future than the leeway allows.
        public static let issuedInFuture = Code(rawValue: "issuedInFuture")
        /// `nonce` differs from the expected one.
        public static let nonceMismatch = Code(rawValue: "nonceMismatch")
        /// The JWKS endpoint failed and no earlier key set is available.
        public static let jwksUnavailable = Code(rawValue: "jwksUnavailable")
        /// OpenSSL failed in a way the input does not explain.
        public static let cryptoFailure = Code(rawValue: "cryptoFailure")
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
