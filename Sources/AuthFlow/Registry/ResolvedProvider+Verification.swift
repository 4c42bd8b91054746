public import AuthFlowJOSE

extension ResolvedProvider {
    /// The one verifier set-up for JWTs this provider signs (id_tokens at sign-in and refresh, signed events):
    /// the plugin's algorithm allow-list without HMAC, `iss` among the provider's issuers (or `issuers`) or filled
    /// into the plugin's issuer placeholder (`ProviderDescription`'s `issuerPlaceholder`), `aud`
    /// among the provider's audiences (or `audiences`), `exp`/`nbf`/`iat` with `leeway`, and `nonce` when given.
    ///
    /// - Parameters:
    ///   - leeway: clock-skew allowance in seconds.
    ///   - nonce: the expected nonce, or `nil` to leave it unchecked.
    ///   - issuers: accepted issuers instead of the provider's own (Google RISC's event issuer).
    ///   - audiences: accepted audiences instead of the provider's own.
    ///   - requireExpiration: whether `exp` must be present (`false` for RFC 8417 security event tokens).
    ///   - requireIssuedAt: whether `iat` must be present.
    public func jwtVerifier(
        leeway: Double, nonce: String? = nil, issuers: Set<String>? = nil, audiences: Set<String>? = nil,
        requireExpiration: Bool = true, requireIssuedAt: Bool = true
    ) -> JWTVerifier {
        var checks = ClaimChecks(
            issuers: issuers ?? acceptedIssuers, audiences: audiences ?? Set(self.audiences), nonce: nonce,
            leeway: leeway)
        // A template issuer (Microsoft's `{tenantid}`) is never accepted as written: only filled from the token.
        if issuers == nil, let issuer, let template = plugin.issuerTemplate(for: issuer) {
            checks.issuers = acceptedIssuers.subtracting([issuer])
            checks.issuerTemplates = [template]
        }
        checks.requireExpiration = requireExpiration
        checks.requireIssuedAt = requireIssuedAt
        return JWTVerifier(allowedAlgorithms: idTokenAlgorithms, checks: checks)
    }
}
