public import AuthFlowJSON

/// The one error type of AuthFlowJOSE: a stable ``Code`` to switch on, a message that says what
/// was expected and what was found, and the claim or key id it concerns.
///
/// Messages never contain a token, a signature, a secret or key material.
public struct JOSEError: CodedError, Sendable, Equatable {
    /// A stable, machine-readable error code.
    public typealias Code = ErrorCode<JOSEError>

    /// What went wrong, stable across releases.
    public let code: Code
    /// What was expected and what was found; never a secret.
    public let message: String
    /// The claim concerned, when a claim check failed.
    package var claim: String?
    /// The key id concerned, when key selection or key parsing failed.
    package var keyID: String?

    /// Creates an error; keep `message` free of secrets, tokens and key material.
    package init(_ code: Code, _ message: String, claim: String? = nil, keyID: String? = nil) {
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

extension JOSEError {
    /// Runs a JSON parse, reporting its failure as `Code.invalidJSON` with the parser's message.
    package static func parsingJSON<Value>(_ body: () throws(JSONError) -> Value) throws(JOSEError) -> Value {
        do { return try body() } catch { throw JOSEError(.invalidJSON, error.message) }
    }
}

extension ErrorCode where Domain == JOSEError {
    /// The compact serialization does not have three dot-separated parts, or a part is empty.
    package static var malformedToken: Self { Self(rawValue: "malformed_token") }
    /// The token is longer than the verifier's size cap.
    package static var tokenTooLarge: Self { Self(rawValue: "token_too_large") }
    /// Text is not strict unpadded base64url.
    package static var invalidBase64URL: Self { Self(rawValue: "invalid_base64url") }
    /// Bytes are not valid JSON, or not the JSON shape expected (e.g. an object).
    package static var invalidJSON: Self { Self(rawValue: "invalid_json") }
    /// The algorithm is not one AuthFlow implements.
    package static var unsupportedAlgorithm: Self { Self(rawValue: "unsupported_algorithm") }
    /// The algorithm is implemented but not in the caller's allow-list.
    package static var algorithmNotAllowed: Self { Self(rawValue: "algorithm_not_allowed") }
    /// The token says `alg: none`.
    package static var unsignedTokenNotAllowed: Self { Self(rawValue: "unsigned_token_not_allowed") }
    /// The signature does not verify.
    package static var invalidSignature: Self { Self(rawValue: "invalid_signature") }
    /// No key in the set fits the token (unknown `kid`, or no key of the right type).
    package static var keyNotFound: Self { Self(rawValue: "key_not_found") }
    /// Several keys fit a token without `kid`, or a `kid` is used twice in a set.
    package static var ambiguousKey: Self { Self(rawValue: "ambiguous_key") }
    /// A key is malformed (missing or mistyped members, a point not on its curve, ...).
    package static var invalidKey: Self { Self(rawValue: "invalid_key") }
    /// A key is well formed but too weak (short RSA modulus, bad exponent, short HMAC key, ROCA).
    package static var weakKey: Self { Self(rawValue: "weak_key") }
    /// A key's `kty`, `crv`, `alg`, `use` or `key_ops` do not fit each other or the token.
    package static var keyMismatch: Self { Self(rawValue: "key_mismatch") }
    /// The header lists a `crit` extension AuthFlow does not understand.
    package static var unsupportedCriticalHeader: Self { Self(rawValue: "unsupported_critical_header") }
    /// The header embeds or points to a key (`jwk`, `jku`, `x5u`, `x5c`).
    package static var embeddedKeyRefused: Self { Self(rawValue: "embedded_key_refused") }
    /// A required claim is absent.
    package static var missingClaim: Self { Self(rawValue: "missing_claim") }
    /// A claim has the wrong JSON type or an impossible value.
    package static var invalidClaim: Self { Self(rawValue: "invalid_claim") }
    /// `iss` is not one of the expected issuers.
    package static var issuerMismatch: Self { Self(rawValue: "issuer_mismatch") }
    /// `aud` does not contain a configured audience.
    package static var audienceMismatch: Self { Self(rawValue: "audience_mismatch") }
    /// `azp` is not a configured audience although `aud` has several values.
    package static var authorizedPartyMismatch: Self { Self(rawValue: "authorized_party_mismatch") }
    /// `exp` (plus leeway) has passed.
    package static var tokenExpired: Self { Self(rawValue: "token_expired") }
    /// `nbf` (minus leeway) is still in the future.
    package static var tokenNotYetValid: Self { Self(rawValue: "token_not_yet_valid") }
    /// `iat` is further in the future than the leeway allows.
    package static var issuedInFuture: Self { Self(rawValue: "issued_in_future") }
    /// `nonce` differs from the expected one.
    package static var nonceMismatch: Self { Self(rawValue: "nonce_mismatch") }
    /// The JWKS endpoint failed and no earlier key set is available.
    package static var jwksUnavailable: Self { Self(rawValue: "jwks_unavailable") }
    /// OpenSSL failed in a way the input does not explain.
    package static var cryptoFailure: Self { Self(rawValue: "crypto_failure") }
}
