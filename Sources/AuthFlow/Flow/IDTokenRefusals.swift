import AuthFlowJOSE

/// The id_token refusals every verification path shares: the browser flow (``OAuthFlow``), native sign-in
/// (``NativeSignIn``) and the code exchange and refresh answers that carry an id_token.
enum IDTokenRefusals {
    /// A failed signature or claim check as a sign-in refusal: `jwks_unavailable` when the provider's keys
    /// could not be had, else `id_token_invalid` carrying the JOSE code and claim. `token` names the id_token
    /// in the message (e.g. "the refreshed id_token").
    static func refusal(_ error: JOSEError, token: String = "the id_token", provider: String? = nil) -> SignInError {
        if error.code == .jwksUnavailable {
            return jwksUnavailable(error, provider: provider)
        }
        return SignInError(
            .idTokenInvalid, "\(token) failed verification: \(error.message)", provider: provider,
            joseCode: error.code, claim: error.claim)
    }

    /// The provider's keys could not be had.
    static func jwksUnavailable(_ error: JOSEError, provider: String? = nil) -> SignInError {
        SignInError(
            .jwksUnavailable, "expected the provider's JWKS, found: \(error.message)", provider: provider,
            joseCode: error.code)
    }

    /// The non-empty `sub` OpenID Connect Core §2 requires.
    ///
    /// - Throws: ``SignInError`` with `id_token_invalid` when `sub` is missing or empty.
    static func subject(of claims: JWTClaims, provider: String? = nil) throws(SignInError) -> String {
        guard let subject = claims.subject, !subject.isEmpty else {
            throw SignInError(
                .idTokenInvalid, "expected a non-empty 'sub' claim in the id_token, found none", provider: provider,
                joseCode: .missingClaim, claim: "sub")
        }
        return subject
    }

    /// That a later id_token (a code exchange's or a refresh's) names the signed-in `subject`.
    ///
    /// - Throws: ``SignInError`` with `id_token_invalid` when it names another.
    static func requireSubject(
        _ claims: JWTClaims, equals subject: String, token: String, provider: String
    ) throws(SignInError) {
        guard claims.subject == subject else {
            throw SignInError(
                .idTokenInvalid, "expected \(token) to name the signed-in subject, found another",
                provider: provider, joseCode: .invalidClaim, claim: "sub")
        }
    }
}
