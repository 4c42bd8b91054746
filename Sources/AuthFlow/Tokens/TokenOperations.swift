public import AuthFlowHTTP
public import AuthFlowJOSE
import Foundation

/// What an application does with a provider's tokens after sign-in: refresh them (or, for Facebook, trade
/// them for long-lived ones) and revoke them.
///
/// A thin async driver like ``SignIn``: it builds each request from the ``ResolvedProvider`` (so the client
/// authenticates exactly as at the code exchange: Apple's fresh ES256 client secret, X's HTTP Basic,
/// Google's `client_secret_post`), sends it with the HTTP client, and checks the answer.
///
/// ```swift
/// let tokens = TokenOperations(providers: providers, httpClient: CurlHTTPClient())
/// let refreshed = try await tokens.refresh(provider: "x", refreshToken: stored, subject: identity.subject)
/// if refreshed.rotated { store(refreshed.refreshToken) }   // before using the new access token
/// try await tokens.revoke(provider: "apple", token: refreshed.refreshToken, tokenTypeHint: .refreshToken)
/// ```
public final class TokenOperations: Sendable {
    /// The providers, by name.
    package let providers: [String: ResolvedProvider]
    /// The tunables (leeway for refreshed id_tokens, client-secret lifetime).
    package let options: SignIn.Options

    private let transport: ProviderTransport
    private let clock: any WallClock
    private let keyCaches: ProviderKeySets

    /// Creates the operations; one JWKS cache per OpenID Connect provider, fetched through `httpClient`.
    ///
    /// - Parameters:
    ///   - providers: the resolved providers whose tokens these operations handle.
    ///   - httpClient: the client for token, revocation and JWKS requests.
    ///   - clock: the time source (client secrets, id_token checks, request durations).
    ///   - options: the tunables (leeway for refreshed id_tokens, client-secret lifetime).
    ///   - requestTimeout: a bound in seconds on each token and revocation request; `nil` leaves the HTTP
    ///     client's default.
    public convenience init(
        providers: [ResolvedProvider], httpClient: any HTTPClient, clock: any WallClock = SystemClock(),
        options: SignIn.Options = .init(), requestTimeout: Double? = nil
    ) {
        self.init(
            providers: providers, httpClient: httpClient, clock: clock, options: options,
            observer: NoProviderObserver(), requestTimeout: requestTimeout)
    }

    /// Creates the operations with JWKS caches shared with ``SignIn`` (`keySets`; `nil` makes fresh ones) and
    /// an `observer` that hears of every token and revocation request (status and duration), as ``SignIn``'s
    /// does: the server's metrics.
    package init(
        providers: [ResolvedProvider], httpClient: any HTTPClient, clock: any WallClock = SystemClock(),
        options: SignIn.Options = .init(), keySets: ProviderKeySets? = nil,
        observer: any ProviderObserver, requestTimeout: Double? = nil
    ) {
        var byName: [String: ResolvedProvider] = [:]
        for provider in providers { byName[provider.name] = provider }
        self.providers = byName
        self.options = options
        self.transport = ProviderTransport(
            httpClient: httpClient, clock: clock, observer: observer, requestTimeout: requestTimeout)
        self.clock = clock
        self.keyCaches = keySets ?? ProviderKeySets(providers: providers, httpClient: httpClient, clock: clock)
    }

    /// Redeems a refresh token (RFC 6749 §6).
    ///
    /// When the answer carries an id_token (OpenID Connect providers), it is verified like the sign-in's
    /// (signature with the provider's JWKS, `iss`, `aud`, `exp`/`iat` with the leeway; no nonce) and, per
    /// OpenID Connect Core §12.2, its `sub` must equal `subject` when given.
    ///
    /// - Parameters:
    ///   - name: the configured provider name.
    ///   - refreshToken: the refresh token to redeem.
    ///   - scopes: a narrower scope to ask for; `nil` keeps the granted one.
    ///   - subject: the signed-in user's subject, to compare with a refreshed id_token's `sub`.
    ///   - clientID: the client the refresh token was issued to when it is not the provider's `client_id`
    ///     (`StoredTokens/clientID`).
    /// - Returns: the new tokens and the refresh token to keep (see ``RefreshResult/rotated``).
    /// - Throws: ``SignInError``: `unknown_provider`, `refresh_unsupported`, `client_authentication_failed`,
    ///   `provider_unreachable`, `token_endpoint_error` (e.g. `invalid_grant` for a revoked or reused token),
    ///   `invalid_token_response`, `jwks_unavailable`, `id_token_invalid`.
    public func refresh(
        provider name: String, refreshToken: String, scopes: [String]? = nil, subject: String? = nil,
        clientID: String? = nil
    ) async throws(SignInError) -> RefreshResult {
        try await refresh(
            provider: name, refreshToken: refreshToken, scopes: scopes, subject: subject, clientID: clientID,
            dpopKey: nil)
    }

    /// ``refresh(provider:refreshToken:scopes:subject:clientID:)`` proving possession of `dpopKey` (RFC 9449),
    /// the key the tokens are bound to (`StoredTokens/dpopKey`): the answer must then be `token_type: DPoP`.
    package func refresh(
        provider name: String, refreshToken: String, scopes: [String]? = nil, subject: String? = nil,
        clientID: String? = nil, dpopKey: JWK?
    ) async throws(SignInError) -> RefreshResult {
        guard let configured = providers[name] else { throw SignIn.unknownProvider(name) }
        let provider = clientID.map { configured.actingAs(client: $0) } ?? configured
        let request = try provider.refreshRequest(
            refreshToken: refreshToken, scopes: scopes, now: clock.now(),
            clientSecretLifetime: options.clientSecretLifetime)
        let response = try await send(request, endpoint: .token, provider: provider, dpopKey: dpopKey)
        let tokens = try Self.tokenSet(
            from: response, expected: "refreshed tokens", provider: name, dpopKey: dpopKey)
        var claims: JWTClaims?
        if let idToken = tokens.idToken, provider.isEnabled(.oidc) {
            claims = try await verify(idToken, provider: provider, subject: subject)
        }
        let rotated = tokens.refreshToken.map { !$0.isEmpty && $0 != refreshToken } ?? false
        return RefreshResult(
            provider: name, tokens: tokens,
            refreshToken: rotated ? (tokens.refreshToken ?? refreshToken) : refreshToken,
            rotated: rotated, idTokenClaims: claims)
    }

    /// Trades a short-lived access token for a long-lived one, for a provider without refresh tokens
    /// (Facebook: `grant_type=fb_exchange_token`, a token of about 60 days).
    ///
    /// - Parameters:
    ///   - name: the configured provider name.
    ///   - accessToken: the access token from the sign-in (or an earlier exchange).
    /// - Returns: the new tokens; ``TokenSet/expiresIn`` says how long the new access token lasts.
    /// - Throws: ``SignInError``: `unknown_provider`, `long_lived_token_unsupported` (the provider refreshes
    ///   instead, or has neither), `client_authentication_failed`, `provider_unreachable`,
    ///   `token_endpoint_error` (e.g. an expired or foreign token, with the provider's error code),
    ///   `invalid_token_response`.
    public func exchangeForLongLivedToken(provider name: String, accessToken: String) async throws(SignInError)
        -> TokenSet
    {
        guard let provider = providers[name] else { throw SignIn.unknownProvider(name) }
        guard
            let request = try provider.longLivedTokenRequest(
                accessToken: accessToken, now: clock.now(), clientSecretLifetime: options.clientSecretLifetime)
        else {
            throw SignInError(
                .longLivedTokenUnsupported,
                "expected a provider with a long-lived-token exchange (Facebook), found one without; "
                    + "refresh tokens are the way to keep access there",
                provider: name)
        }
        let response = try await send(request, endpoint: .token, provider: name)
        return try Self.tokenSet(from: response, expected: "a long-lived token", provider: name)
    }

    /// The tokens of a 2xx token-endpoint answer without an `error` member (see `TokenResponse`), the error
    /// naming the provider.
    ///
    /// - Throws: ``SignInError``: `token_endpoint_error` (with the provider's error code and the HTTP status),
    ///   `invalid_token_response`.
    private static func tokenSet(
        from response: HTTPClientResponse, expected: String, provider name: String, dpopKey: JWK? = nil
    ) throws(SignInError) -> TokenSet {
        do throws(SignInError) {
            return try TokenResponse.tokens(
                from: response, expected: expected, requireIDToken: false, dpopKey: dpopKey)
        } catch {
            var error = error
            error.provider = name
            throw error
        }
    }

    /// Revokes an access or refresh token at the provider's revocation endpoint (RFC 7009).
    ///
    /// Success is any 2xx answer. Apple answers 200 whatever the token, so success does not prove that a
    /// token existed.
    ///
    /// - Throws: ``SignInError``: `unknown_provider`, `revocation_unsupported` (no revocation endpoint, e.g.
    ///   Facebook), `client_authentication_failed`, `provider_unreachable`, `revocation_failed` (a non-2xx
    ///   answer, with the provider's `error` code when it sent one).
    ///
    /// - Parameters:
    ///   - name: the configured provider name.
    ///   - token: the access or refresh token to revoke.
    ///   - tokenTypeHint: which kind `token` is, sent as `token_type_hint` when given.
    ///   - clientID: the client the token was issued to when it is not the provider's `client_id`
    ///     (`StoredTokens/clientID`: a native app's bundle id); the request then authenticates as it.
    public func revoke(
        provider name: String, token: String, tokenTypeHint: TokenTypeHint? = nil, clientID: String? = nil
    ) async throws(SignInError) {
        try await revoke(provider: name, token: token, tokenTypeHint: tokenTypeHint, clientID: clientID, dpopKey: nil)
    }

    /// ``revoke(provider:token:tokenTypeHint:clientID:)`` proving possession of `dpopKey` (RFC 9449), the key the
    /// token is bound to (`StoredTokens/dpopKey`).
    package func revoke(
        provider name: String, token: String, tokenTypeHint: TokenTypeHint? = nil, clientID: String? = nil,
        dpopKey: JWK?
    ) async throws(SignInError) {
        guard let configured = providers[name] else { throw SignIn.unknownProvider(name) }
        let provider = clientID.map { configured.actingAs(client: $0) } ?? configured
        guard
            let request = try provider.revocationRequest(
                token: token, tokenTypeHint: tokenTypeHint?.rawValue, now: clock.now(),
                clientSecretLifetime: options.clientSecretLifetime)
        else {
            throw SignInError(
                .revocationUnsupported, "expected a revocation endpoint for the provider, found none", provider: name)
        }
        let response = try await send(request, endpoint: .revocation, provider: provider, dpopKey: dpopKey)
        guard (200..<300).contains(response.status) else {
            let code = ProviderErrorCode.sanitize(OAuthFlow.errorCode(in: try? JSONValue.parse(response.body)))
            throw SignInError(
                .revocationFailed,
                "expected HTTP 200 from the revocation endpoint, found HTTP \(response.status) with error "
                    + "'\(code ?? "none")'",
                provider: name, providerError: code, upstreamStatus: response.status)
        }
    }

    /// Sends `request` (bounded by the request timeout, when set), telling the observer how it went.
    private func send(
        _ request: HTTPClientRequest, endpoint: ProviderRequestEndpoint, provider: String
    ) async throws(SignInError) -> HTTPClientResponse {
        try await transport.send(request, endpoint: endpoint, provider: provider)
    }

    /// Sends a request of `provider` with a DPoP proof when `dpopKey` is given; the retry after a nonce challenge
    /// carries a fresh client assertion.
    private func send(
        _ request: HTTPClientRequest, endpoint: ProviderRequestEndpoint, provider: ResolvedProvider, dpopKey: JWK?
    ) async throws(SignInError) -> HTTPClientResponse {
        let clock = self.clock
        return try await transport.send(
            request, endpoint: endpoint, provider: provider.name, dpopKey: dpopKey,
            renew: { request throws(SignInError) in try provider.withFreshClientAssertion(request, now: clock.now()) })
    }

    private func verify(_ idToken: String, provider: ResolvedProvider, subject: String?) async throws(SignInError)
        -> JWTClaims
    {
        let claims: JWTClaims
        do throws(JOSEError) {
            claims = try await keyCaches.verify(
                idToken, provider: provider.name, with: provider.jwtVerifier(leeway: options.leeway))
        } catch {
            throw IDTokenRefusals.refusal(error, token: "the refreshed id_token", provider: provider.name)
        }
        if let subject {
            try IDTokenRefusals.requireSubject(
                claims, equals: subject, token: "the refreshed id_token", provider: provider.name)
        }
        return claims
    }
}
