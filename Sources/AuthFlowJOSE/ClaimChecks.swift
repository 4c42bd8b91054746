package import Foundation

/// The claim checks run after a signature has verified, in a fixed order:
/// `iss` → `aud`/`azp` → `exp`/`nbf`/`iat` → `nonce`.
///
/// Each check is also available on its own as a static function, so other verifiers can
/// compose them. Errors name the claim; messages never echo a nonce.
public struct ClaimChecks: Sendable {
    /// Accepted issuers, compared exactly; empty (with no issuer templates) means `iss` is not checked.
    package var issuers: Set<String>
    /// Issuers filled from the token's own claims (Microsoft's `{tenantid}` with `tid`), accepted besides
    /// ``issuers``.
    package var issuerTemplates: [IssuerTemplate] = []
    /// Accepted audiences: `aud` must contain one; when `aud` has several values `azp` must be
    /// one of these too. Empty means `aud` is not checked.
    package var audiences: Set<String>
    /// The expected `nonce`; when set, the claim must be present and equal.
    package var nonce: String?
    /// Clock-skew allowance in seconds for `exp`, `nbf` and `iat`.
    package var leeway: Double
    /// Whether `iat` must be present (OpenID Connect requires it).
    package var requireIssuedAt = true
    /// Whether `exp` must be present (OpenID Connect requires it).
    package var requireExpiration = true

    /// Creates the checks: `iss` must be one of `issuers` (compared exactly), `aud` must contain one of
    /// `audiences` (and `azp` must be one of them when `aud` has several values), `nonce`, when given, must be
    /// present and equal; an empty set leaves its claim unchecked. `leeway` is the clock-skew allowance in
    /// seconds for `exp`, `nbf` and `iat`, which OpenID Connect requires (`exp` and `iat` must be present).
    public init(issuers: Set<String> = [], audiences: Set<String> = [], nonce: String? = nil, leeway: Double = 60) {
        self.issuers = issuers
        self.audiences = audiences
        self.nonce = nonce
        self.leeway = leeway
    }

    /// Runs every check in order and throws the first failure.
    /// - Throws: `JOSEError` `.missingClaim`, `.invalidClaim`, `.issuerMismatch`,
    ///   `.audienceMismatch`, `.authorizedPartyMismatch`, `.tokenExpired`, `.tokenNotYetValid`,
    ///   `.issuedInFuture`, `.nonceMismatch`.
    package func validate(_ claims: JWTClaims, now: Date) throws(JOSEError) {
        if !issuerTemplates.isEmpty {
            try Self.checkIssuer(claims, accepted: issuers, templates: issuerTemplates)
        } else if !issuers.isEmpty {
            try Self.checkIssuer(claims, accepted: issuers)
        }
        if !audiences.isEmpty { try Self.checkAudience(claims, accepted: audiences) }
        try Self.checkTimes(
            claims, now: now, leeway: leeway, requireExpiration: requireExpiration, requireIssuedAt: requireIssuedAt)
        if let nonce { try Self.checkNonce(claims, expected: nonce) }
    }

    /// `iss` must be a string equal to one of `accepted`.
    /// - Throws: `JOSEError` `.missingClaim`, `.invalidClaim`, `.issuerMismatch`.
    package static func checkIssuer(_ claims: JWTClaims, accepted: Set<String>) throws(JOSEError) {
        if claims.withPlainString("iss", { contains(accepted, ascii: $0) }) == true { return }
        guard let value = claims["iss"] else {
            throw JOSEError(.missingClaim, "expected an 'iss' claim, found none", claim: "iss")
        }
        guard let issuer = value.stringValue else {
            throw JOSEError(.invalidClaim, "expected 'iss' to be a string", claim: "iss")
        }
        guard accepted.contains(issuer) else {
            throw JOSEError(
                .issuerMismatch, "expected issuer \(list(accepted)), found '\(JWK.sanitized(issuer))'", claim: "iss")
        }
    }

    /// `iss` must be a string equal to one of `accepted`, or to a template of `templates` filled with the
    /// token's own claim (a GUID); a token whose `iss` names another tenant than its claim is refused.
    /// - Throws: `JOSEError` `.missingClaim`, `.invalidClaim`, `.issuerMismatch`.
    package static func checkIssuer(
        _ claims: JWTClaims, accepted: Set<String>, templates: [IssuerTemplate]
    ) throws(JOSEError) {
        guard let value = claims["iss"] else {
            throw JOSEError(.missingClaim, "expected an 'iss' claim, found none", claim: "iss")
        }
        guard let issuer = value.stringValue else {
            throw JOSEError(.invalidClaim, "expected 'iss' to be a string", claim: "iss")
        }
        if accepted.contains(issuer) { return }
        for template in templates {
            if let filled = claims.string(template.claim).flatMap(template.issuer(for:)), filled == issuer { return }
        }
        let expected = templates.map { "'\($0.template)' with \($0.placeholder) = the token's '\($0.claim)' (a GUID)" }
        let all = (accepted.sorted().map { "'\($0)'" } + expected).joined(separator: " or ")
        throw JOSEError(.issuerMismatch, "expected issuer \(all), found '\(JWK.sanitized(issuer))'", claim: "iss")
    }

    /// `aud` (a string or an array of strings) must contain one of `accepted`; `azp`, when present,
    /// must be one of `accepted`, and with several audiences it must be present.
    /// - Throws: `JOSEError` `.missingClaim`, `.invalidClaim`, `.audienceMismatch`,
    ///   `.authorizedPartyMismatch`.
    package static func checkAudience(_ claims: JWTClaims, accepted: Set<String>) throws(JOSEError) {
        // The usual single plain string is compared in place; no value is collected into a new array.
        var count = 1
        var matches = false
        if let plain = claims.withPlainString("aud", { contains(accepted, ascii: $0) }) {
            matches = plain
        } else {
            switch claims["aud"] {
            case nil:
                throw JOSEError(.missingClaim, "expected an 'aud' claim, found none", claim: "aud")
            case .string(let value)?:
                matches = accepted.contains(value)
            case .array(let values)?:
                var found = false
                for value in values {
                    guard let string = value.stringValue else {
                        throw JOSEError(
                            .invalidClaim, "expected 'aud' to be a string or an array of strings", claim: "aud")
                    }
                    if !found { found = accepted.contains(string) }
                }
                count = values.count
                matches = found
            default:
                throw JOSEError(.invalidClaim, "expected 'aud' to be a string or an array of strings", claim: "aud")
            }
        }
        guard matches else {
            throw JOSEError(
                .audienceMismatch,
                "expected 'aud' to contain \(list(accepted)), found \(count) other value(s)", claim: "aud")
        }
        // nil when absent; otherwise whether it is one of `accepted`.
        var authorizedPartyAccepted: Bool? = claims.withPlainString("azp") { contains(accepted, ascii: $0) }
        if authorizedPartyAccepted == nil, let value = claims["azp"] {
            guard let string = value.stringValue else {
                throw JOSEError(.invalidClaim, "expected 'azp' to be a string", claim: "azp")
            }
            authorizedPartyAccepted = accepted.contains(string)
        }
        if count > 1, authorizedPartyAccepted == nil {
            throw JOSEError(
                .missingClaim, "expected an 'azp' claim because 'aud' has several values, found none", claim: "azp")
        }
        // Checked whenever present (OpenID Connect Core §3.1.3.7): a token issued to another party is refused
        // even when it names this client as its only audience.
        if let authorizedPartyAccepted {
            guard authorizedPartyAccepted else {
                throw JOSEError(
                    .authorizedPartyMismatch, "expected 'azp' to be \(list(accepted)), found another value",
                    claim: "azp")
            }
        }
    }

    /// `exp` must be in the future, `nbf` in the past and `iat` not in the future, each with
    /// `leeway` seconds of allowance.
    /// - Throws: `JOSEError` `.missingClaim`, `.invalidClaim`, `.tokenExpired`,
    ///   `.tokenNotYetValid`, `.issuedInFuture`.
    package static func checkTimes(
        _ claims: JWTClaims, now: Date, leeway: Double, requireExpiration: Bool = true,
        requireIssuedAt: Bool = true
    ) throws(JOSEError) {
        let current = now.timeIntervalSince1970
        if let exp = try numericDate(claims, "exp", required: requireExpiration) {
            guard current < exp + leeway else {
                throw JOSEError(
                    .tokenExpired,
                    "expected 'exp' to be after now minus \(seconds(leeway)) s leeway, found it \(seconds(current - exp)) s in the past",
                    claim: "exp")
            }
        }
        if let nbf = try numericDate(claims, "nbf", required: false) {
            guard current + leeway >= nbf else {
                throw JOSEError(
                    .tokenNotYetValid,
                    "expected 'nbf' to be before now plus \(seconds(leeway)) s leeway, found it \(seconds(nbf - current)) s in the future",
                    claim: "nbf")
            }
        }
        if let iat = try numericDate(claims, "iat", required: requireIssuedAt) {
            guard iat <= current + leeway else {
                throw JOSEError(
                    .issuedInFuture,
                    "expected 'iat' to be at most \(seconds(leeway)) s in the future, found it \(seconds(iat - current)) s in the future",
                    claim: "iat")
            }
        }
    }

    /// `nonce` must be present and equal to `expected` (compared in constant time).
    /// - Throws: `JOSEError` `.missingClaim`, `.invalidClaim`, `.nonceMismatch`.
    package static func checkNonce(_ claims: JWTClaims, expected: String) throws(JOSEError) {
        var expected = expected
        let plainEqual = expected.withUTF8 { expectedBytes in
            claims.withPlainString("nonce") { ConstantTime.equals($0, expectedBytes) }
        }
        if plainEqual == true { return }
        guard let value = claims["nonce"] else {
            throw JOSEError(.missingClaim, "expected a 'nonce' claim, found none", claim: "nonce")
        }
        guard let nonce = value.stringValue else {
            throw JOSEError(.invalidClaim, "expected 'nonce' to be a string", claim: "nonce")
        }
        guard ConstantTime.equals(nonce, expected) else {
            throw JOSEError(
                .nonceMismatch, "expected 'nonce' to equal the nonce sent with the request, found another value",
                claim: "nonce")
        }
    }

    /// Whole seconds for a message, as `Int(_:)` would write them; a value beyond `Int` (a numeric
    /// date of 1e20 in a signed token) is written as it is instead of trapping.
    static func seconds(_ value: Double) -> String {
        if let whole = Int(exactly: value.rounded(.towardZero)) { return String(whole) }
        return "\(value)"
    }

    static func numericDate(_ claims: JWTClaims, _ name: String, required: Bool) throws(JOSEError) -> Double? {
        // The usual whole number of seconds, read in place: the same value the subscript would give.
        if let seconds = claims.plainInteger(name) { return Double(seconds) }
        guard let value = claims[name] else {
            if required { throw JOSEError(.missingClaim, "expected a '\(name)' claim, found none", claim: name) }
            return nil
        }
        guard let seconds = value.doubleValue, seconds.isFinite else {
            throw JOSEError(.invalidClaim, "expected '\(name)' to be a number of seconds since 1970", claim: name)
        }
        return seconds
    }

    /// Whether the ASCII string in `bytes` is one of `accepted`, decided as `Set.contains` would
    /// (a non-ASCII candidate is compared as a string) but without building a string for small sets.
    static func contains(_ accepted: Set<String>, ascii bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard accepted.count <= 8 else { return accepted.contains(String(decoding: bytes, as: UTF8.self)) }
        for candidate in accepted {
            // The same bytes are the same string. Other bytes are another string when the candidate is
            // ASCII too (ASCII text is its own canonical form); a non-ASCII candidate may still be
            // canonically equivalent, so it is compared as a string.
            let decided: Bool? =
                candidate.utf8.withContiguousStorageIfAvailable { utf8 -> Bool? in
                    if JSONObjectIndex.equal(utf8, bytes) { return true }
                    return JSONObjectIndex.isASCII(utf8) ? false : nil
                } ?? nil
            switch decided {
            case true?: return true
            case false?: continue
            case nil: if candidate == String(decoding: bytes, as: UTF8.self) { return true }
            }
        }
        return false
    }

    static func list(_ values: Set<String>) -> String {
        values.count == 1
            ? values.first.map { "'\($0)'" } ?? "" : "one of [" + values.sorted().joined(separator: ", ") + "]"
    }
}
