public import AuthFlowJOSE
public import Foundation

extension OAuthFlow {
    /// The JWKS is available: verifies the id_token.
    ///
    /// Verification follows DESIGN §2 through AuthFlowJOSE: size cap, strict base64url, header, key by
    /// `kid` with the algorithm from the key and the plugin's allow-list (never `none` or HMAC), signature
    /// over the raw bytes, then `iss` (the plugin's accepted issuers), `aud` (client_id plus `audiences:`,
    /// `azp` when present or several), `exp`/`nbf`/`iat` with the leeway, and the nonce. On an unknown `kid` the flow
    /// asks once for a forced JWKS refetch before failing.
    ///
    /// - Parameters:
    ///   - keys: the provider's key set.
    ///   - fetchedFromProvider: whether obtaining it was a network round trip (not a cache hit).
    ///   - now: the current time.
    /// - Returns: ``Action/fetchJWKS(_:)`` (forced refetch), ``Action/fetchUserinfo(_:)``,
    ///   ``Action/complete(_:)``, or ``Action/fail(_:)`` with `id_token_invalid` carrying the JOSE code.
    public mutating func jwksReceived(_ keys: JWKSet, fetchedFromProvider: Bool, now: Date) -> Action {
        guard case .awaitingKeys(let exchange, let tokens, let idToken, let refetched) = state else {
            return unexpected("JWKS received", now: now)
        }
        appendTrace(
            .jwks, now: now, checks: [], roundTrip: fetchedFromProvider, outcome: .succeeded,
            detail: "\(keys.keys.count) key(s)\(fetchedFromProvider ? ", fetched" : ", cached")")
        // A provider that does not echo the nonce (LinkedIn) has it checked only when present.
        let echoes = provider.plugin.noncePolicy == .required
        let verifier = provider.jwtVerifier(leeway: options.leeway, nonce: echoes ? exchange.record.nonce : nil)
        let claims: JWTClaims
        do throws(JOSEError) {
            claims = try verifier.verify(idToken, keys: keys, now: now)
            if !echoes, claims["nonce"] != nil, let nonce = exchange.record.nonce {
                try ClaimChecks.checkNonce(claims, expected: nonce)
            }
        } catch  where error.code == .keyNotFound && !refetched {
            appendTrace(
                .idTokenVerification, now: now, checks: [], roundTrip: false, outcome: .succeeded,
                detail: "unknown kid, refetching the JWKS once")
            guard let url = provider.endpoints.jwks else {
                return fail(.jwks, SignInError(.jwksUnavailable, "expected a JWKS endpoint, found none"), now: now)
            }
            state = .awaitingKeys(exchange, tokens, idToken: idToken, refetched: true)
            return .fetchJWKS(JWKSFetch(url: url, forceRefresh: true, keyID: error.keyID, idToken: idToken))
        } catch {
            return fail(
                .idTokenVerification,
                SignInError(
                    .idTokenInvalid, "the id_token failed verification: \(error.message)", joseCode: error.code,
                    claim: error.claim),
                now: now)
        }
        // OpenID Connect Core §2: `sub` is required. Refused here, before any userinfo call can use the token.
        guard let subject = claims.subject, !subject.isEmpty else {
            return fail(
                .idTokenVerification,
                SignInError(
                    .idTokenInvalid, "expected a non-empty 'sub' claim in the id_token, found none",
                    joseCode: .missingClaim, claim: "sub"),
                now: now)
        }
        var passed = ["signature", "iss", "aud"]
        if claims.audience.count > 1 || claims.authorizedParty != nil { passed.append("azp") }
        passed += ["exp", "nbf", "iat", "nonce"]
        appendTrace(.idTokenVerification, now: now, checks: passed, roundTrip: false, outcome: .succeeded)
        if provider.plugin.fetchesUserinfoWithIDToken {
            return requestUserinfo(exchange, tokens, idTokenClaims: claims, now: now)
        }
        let identity: VerifiedIdentity
        do throws(SignInError) {
            identity = try provider.plugin.identity(fromIDToken: claims, provider: provider)
        } catch {
            return fail(.complete, error, now: now)
        }
        return complete(exchange, tokens, identity, now: now)
    }

    mutating func complete(_ exchange: Exchange, _ tokens: TokenSet, _ identity: VerifiedIdentity, now: Date)
        -> Action
    {
        appendTrace(
            .complete, now: now, checks: ["subject"] + (identity.emailVerified ? ["email_verified"] : []),
            roundTrip: false, outcome: .succeeded, detail: identity.source.rawValue)
        state = .finished
        return .complete(
            SignInResult(
                provider: provider.name, identity: identity, tokens: tokens, returnTo: exchange.record.returnTo,
                intent: exchange.record.intent, unverifiedProfile: exchange.profile, trace: trace))
    }
}
