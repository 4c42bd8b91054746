package import AuthFlowJOSE
package import Foundation

extension OAuthFlow {
    /// The id_token went through the provider's key-set cache (``ProviderKeySets/verification(of:provider:with:)``
    /// with ``IDTokenVerification/verifier``): checks what the cache does not, then asks for userinfo or completes.
    ///
    /// Verification follows the id_token verification order of docs/architecture.md through AuthFlowJOSE: size cap,
    /// strict base64url, header, key by `kid` with the algorithm from the key and the plugin's allow-list (never `none`
    /// or HMAC), signature over the raw bytes, then `iss` (the plugin's accepted issuers), `aud` (client_id plus
    /// `audiences:`, `azp` when present or several), `exp`/`nbf`/`iat` with the leeway, and the nonce. On an unknown
    /// `kid` the cache (not the flow) refetches once, rate-limited. Then the flow checks a nonce the provider sent
    /// without promising it, and a non-empty `sub`.
    ///
    /// - Parameters:
    ///   - verification: the cache's outcome and where its keys came from (traced as the `jwks` step).
    ///   - now: the current time.
    /// - Returns: ``IdentityAction/fetchUserinfo(_:)``, ``IdentityAction/complete(_:)``, or
    ///   ``IdentityAction/fail(_:)`` with `jwks_unavailable`, or `id_token_invalid` carrying the JOSE code.
    /// - Precondition: the flow asked for it (``TokenResponseAction/verifyIDToken(_:)``).
    package mutating func idTokenVerified(_ verification: JWKSVerification, now: Date) -> IdentityAction {
        guard case .verifyingIDToken(let exchange, let tokens) = state else { unexpected("id_token verified") }
        let verified: JWTClaims
        switch verification.result {
        case .failure(let error) where error.code == .jwksUnavailable || verification.keySource == nil:
            return fail(.jwks, IDTokenRefusals.jwksUnavailable(error), now: now, roundTrip: true)
        case .failure(let error):
            traceKeys(verification, now: now)
            return idTokenRefused(error, now: now)
        case .success(let claims):
            traceKeys(verification, now: now)
            verified = claims
        }
        let claims: JWTClaims
        do throws(JOSEError) {
            // A provider that does not echo the nonce (LinkedIn) has it checked only when present.
            if provider.plugin.noncePolicy != .required, verified["nonce"] != nil, let nonce = exchange.record.nonce {
                try ClaimChecks.checkNonce(verified, expected: nonce)
            }
            claims = verified
        } catch {
            return idTokenRefused(error, now: now)
        }
        // OpenID Connect Core §2: `sub` is required. Refused here, before any userinfo call can use the token.
        do throws(SignInError) {
            _ = try IDTokenRefusals.subject(of: claims)
            // What the sign-in asked of the authentication (max_age, acr_values), proven by the verified token.
            try exchange.record.stepUp?.check(claims, now: now, leeway: options.leeway)
        } catch {
            return fail(.idTokenVerification, error, now: now)
        }
        var passed = ["signature", "iss", "aud"]
        if claims.audience.count > 1 || claims.authorizedParty != nil { passed.append("azp") }
        passed += ["exp", "nbf", "iat", "nonce"]
        if exchange.record.stepUp != nil { passed.append("step_up") }
        appendTrace(.idTokenVerification, now: now, checks: passed, roundTrip: false, outcome: .succeeded)
        if provider.plugin.fetchesUserinfoWithIDToken {
            return requestUserinfo(exchange, tokens, idTokenClaims: claims, now: now)
        }
        let identity: VerifiedIdentity
        do throws(SignInError) {
            identity = try provider.plugin.identity.identity(fromIDToken: claims, provider: provider)
        } catch {
            return fail(.complete, error, now: now)
        }
        return complete(exchange, tokens, identity, now: now)
    }

    /// The `jwks` step: how many keys, and whether obtaining them was a round trip to the provider.
    private mutating func traceKeys(_ verification: JWKSVerification, now: Date) {
        let source =
            switch verification.keySource {
            case .cached, nil: "cached"
            case .fetched: "fetched"
            case .refetchedForUnknownKey: "refetched for an unknown kid"
            }
        appendTrace(
            .jwks, now: now, checks: [], roundTrip: verification.keySource.map { $0 != .cached } ?? false,
            outcome: .succeeded, detail: "\(verification.keyCount) key(s), \(source)")
    }

    mutating func complete(_ exchange: Exchange, _ tokens: TokenSet, _ identity: VerifiedIdentity, now: Date)
        -> IdentityAction
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

    /// Fails the flow at `id_token_verification` with `id_token_invalid`, carrying the JOSE code and claim.
    private mutating func idTokenRefused(_ error: JOSEError, now: Date) -> IdentityAction {
        fail(.idTokenVerification, IDTokenRefusals.refusal(error), now: now)
    }
}
