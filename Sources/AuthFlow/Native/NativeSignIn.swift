package import AuthFlowHTTP
package import AuthFlowJOSE
import Foundation

/// Native-app sign-in: verifies an ID token a mobile app obtained from its provider's SDK (Apple's
/// AuthenticationServices, Google's Credential Manager or GoogleSignIn, Facebook Limited Login) against a
/// nonce this server issued, and exchanges Apple's authorization code. No HTTP server here: the sign-in
/// server maps the outcome to a bearer session.
///
/// Order: the request's nonce is opened (sealed by this server, for this provider, unexpired); the token is verified in
/// the id_token verification order (docs/architecture.md) with the native audiences (the plugin's ``NativeAudience``);
/// `iat` must not precede the nonce; the token's `nonce` must be the issued nonce or its SHA-256 in lowercase hex; the
/// nonce is then spent in the spent-state set (once, on any instance); only then is a code exchanged.
package struct NativeSignIn: Sendable {
    /// What the app sends.
    package struct Request: Sendable {
        /// The provider's ID token.
        package var idToken: String
        /// The nonce from `POST /auth/{provider}/native/nonce`, as issued (the token carries it or its hash).
        package var nonce: String
        /// Apple's one-time `authorizationCode`, when the app sends it.
        package var code: String?
        /// Apple's first-authorization `user` JSON (`{"name": {"firstName", "lastName"}}`), as text.
        package var user: String?
        /// What the user asked for.
        package var intent: SignInIntent

        /// Creates a request.
        package init(
            idToken: String, nonce: String, code: String? = nil, user: String? = nil, intent: SignInIntent = .login
        ) {
            self.idToken = idToken
            self.nonce = nonce
            self.code = code
            self.user = user
            self.intent = intent
        }
    }

    /// A verified native sign-in.
    package struct Outcome: Sendable {
        /// The verified identity, intent and first-login name (its `tokens` are ``exchangedTokens`` or, without
        /// a code, an empty set).
        package let result: SignInResult
        /// The tokens of the code exchange, without its id_token; `nil` without a code.
        package let exchangedTokens: TokenSet?
        /// The native client the exchanged tokens were issued to (the token's `aud`); `nil` without a code.
        package let tokenClientID: String?
    }

    let providers: [String: ResolvedProvider]
    let keySets: ProviderKeySets
    let transport: ProviderTransport
    let flowStore: any FlowStore
    let clock: any WallClock
    let options: OAuthFlow.Options
    /// Seals and opens the nonces.
    package let nonces: NativeNonceSeal

    /// Creates the native sign-in over the same providers, JWKS caches and spent-state set as ``SignIn``.
    package init(
        providers: [ResolvedProvider], keySets: ProviderKeySets, httpClient: any HTTPClient, flowStore: any FlowStore,
        nonces: NativeNonceSeal, clock: any WallClock = SystemClock(), options: OAuthFlow.Options = .init(),
        observer: any ProviderObserver = NoProviderObserver()
    ) {
        var byName: [String: ResolvedProvider] = [:]
        for provider in providers { byName[provider.name] = provider }
        self.providers = byName
        self.keySets = keySets
        self.transport = ProviderTransport(httpClient: httpClient, clock: clock, observer: observer)
        self.flowStore = flowStore
        self.nonces = nonces
        self.clock = clock
        self.options = options
    }

    /// The longest ID token, code or `user` text read (bytes).
    package static let maximumFieldBytes = 8 * 1024

    /// Verifies `request` for the provider named `name` and exchanges its code.
    ///
    /// - Throws: ``SignInError``: `unknown_provider` (also when native sign-in is off for it), `invalid_request`,
    ///   `invalid_nonce`, `nonce_expired`, `nonce_provider_mismatch`, `id_token_invalid` (with the JOSE code:
    ///   signature, unknown key, `aud`, `azp`, expiry…), `jwks_unavailable`, `nonce_mismatch`, `nonce_reused`,
    ///   `flow_store_unavailable`, `invalid_user_field`, and for the code `token_endpoint_error`,
    ///   `invalid_token_response`, `client_authentication_failed`, `provider_unreachable`.
    package func verify(_ request: Request, provider name: String) async throws(SignInError) -> Outcome {
        guard let provider = providers[name], provider.acceptsNativeSignIn,
            let native = provider.plugin.nativeSignIn
        else { throw SignIn.unknownProvider(name) }
        try Self.checkSizes(request, native: native, provider: name)
        let issued = try nonces.open(request.nonce, provider: name, now: clock.now())
        let (claims, tokenClient) = try await verifiedClaims(request.idToken, provider: provider, native: native)
        let subject = try IDTokenRefusals.subject(of: claims, provider: name)
        try Self.checkNonce(claims, request: request, issuedAt: issued.issuedAt, leeway: options.leeway, provider: name)
        let identity = try provider.plugin.identity.identity(fromIDToken: claims, provider: provider)
        let profile = try request.user.flatMap { user throws(SignInError) in
            try provider.plugin.identity.unverifiedProfile(
                from: CallbackParameters([("user", user)]), provider: provider)
        }
        // Spent once, on any instance sharing the set; before the code exchange, so a replay exchanges nothing.
        let spent: Bool
        do throws(FlowStoreError) {
            spent = try await flowStore.markSpent(state: "native-nonce " + request.nonce, until: issued.expiresAt)
        } catch {
            throw SignInError(
                .flowStoreUnavailable, "expected the flow store to answer, found \(error.code.rawValue)", provider: name
            )
        }
        guard spent else {
            throw SignInError(
                .nonceReused, "expected a nonce not used before, found one a sign-in already spent", provider: name)
        }
        var exchanged: TokenSet?
        if let code = request.code {
            exchanged = try await exchange(
                code: code, provider: provider.actingAs(client: tokenClient), subject: subject)
        }
        let empty = TokenSet(
            accessToken: "", tokenType: nil, refreshToken: nil, expiresIn: nil, idToken: nil, scope: nil)
        let result = SignInResult(
            provider: name, identity: identity, tokens: exchanged ?? empty, returnTo: nil, intent: request.intent,
            unverifiedProfile: profile, trace: [])
        return Outcome(
            result: result, exchangedTokens: exchanged, tokenClientID: exchanged == nil ? nil : tokenClient)
    }

    /// Refuses an oversized field, and a code for a provider that exchanges none.
    private static func checkSizes(_ request: Request, native: NativeSignInDescription, provider name: String)
        throws(SignInError)
    {
        for (field, value) in [("id_token", request.idToken), ("code", request.code), ("user", request.user)] {
            if let value, value.utf8.count > maximumFieldBytes {
                throw SignInError(
                    .invalidRequest, "expected \(field) of at most \(maximumFieldBytes) bytes, found more",
                    provider: name)
            }
        }
        if request.code != nil, !native.exchangesAuthorizationCode {
            throw SignInError(
                .invalidRequest, "expected no code: provider '\(name)' exchanges no native authorization code",
                provider: name)
        }
    }

    /// The id_token verification order (docs/architecture.md) through the shared JWKS cache, with the native
    /// audiences; returns the claims and the native client the token names.
    private func verifiedClaims(_ idToken: String, provider: ResolvedProvider, native: NativeSignInDescription)
        async throws(SignInError) -> (JWTClaims, String)
    {
        let clients = Set(provider.nativeClients)
        let audiences: Set<String> =
            switch native.audience {
            case .nativeClient: clients
            case .serverClientPresentedByNativeClient: clients.union([provider.clientID])
            }
        let claims: JWTClaims
        do throws(JOSEError) {
            claims = try await keySets.verify(
                idToken, provider: provider.name,
                with: provider.jwtVerifier(leeway: options.leeway, audiences: audiences))
        } catch {
            throw IDTokenRefusals.refusal(error, provider: provider.name)
        }
        return (claims, try Self.tokenClient(of: claims, audience: native.audience, provider: provider))
    }

    /// The native client `claims` were issued to (`aud`) or presented by (`azp`).
    private static func tokenClient(of claims: JWTClaims, audience: NativeAudience, provider: ResolvedProvider)
        throws(SignInError) -> String
    {
        let clients = Set(provider.nativeClients)
        func refuse(_ message: String, _ jose: JOSEError.Code, _ claim: String) -> SignInError {
            SignInError(.idTokenInvalid, message, provider: provider.name, joseCode: jose, claim: claim)
        }
        switch audience {
        case .nativeClient:
            guard let client = claims.audience.first(where: clients.contains) else {
                throw refuse(
                    "expected 'aud' to name one of native_clients, found another value", .audienceMismatch, "aud")
            }
            return client
        case .serverClientPresentedByNativeClient:
            guard claims.audience.contains(provider.clientID) else {
                throw refuse(
                    "expected 'aud' to be the server's client_id, found another value", .audienceMismatch, "aud")
            }
            guard let presenter = claims.authorizedParty, clients.contains(presenter) else {
                throw refuse(
                    "expected 'azp' to name one of native_clients, found "
                        + (claims.authorizedParty == nil ? "none" : "another value"),
                    .authorizedPartyMismatch, "azp")
            }
            return presenter
        }
    }

    /// `iat` not before the nonce was issued (Apple's tokens may live 24 h: this bounds them), and the token's
    /// `nonce` the issued nonce or its SHA-256 in lowercase hex, both compared in full, in constant time.
    private static func checkNonce(
        _ claims: JWTClaims, request: Request, issuedAt: Date, leeway: Double, provider name: String
    ) throws(SignInError) {
        if let iat = claims.issuedAt, Double(iat) + leeway < issuedAt.timeIntervalSince1970 {
            throw SignInError(
                .idTokenInvalid, "expected 'iat' at or after the nonce was issued, found an earlier time",
                provider: name, joseCode: .invalidClaim, claim: "iat")
        }
        guard let tokenNonce = claims.nonce, !tokenNonce.isEmpty else {
            throw SignInError(
                .nonceMismatch, "expected a 'nonce' claim in the id_token, found none", provider: name, claim: "nonce")
        }
        let hashed = Hex.encode(Digest.sha256(Array(request.nonce.utf8)))
        let plainMatches = ConstantTime.equals(tokenNonce, request.nonce)
        let hashedMatches = ConstantTime.equals(tokenNonce, hashed)
        guard plainMatches || hashedMatches else {
            throw SignInError(
                .nonceMismatch,
                "expected the id_token's 'nonce' to be the issued nonce or its SHA-256 in lowercase hex, found "
                    + "another value", provider: name, claim: "nonce")
        }
    }

    /// Exchanges a native app's authorization code as `provider` (acting as the app's client: `client_id` and
    /// the client secret's `sub` are its bundle id), without `redirect_uri`; a returned id_token must verify
    /// and name `subject`.
    func exchange(code: String, provider: ResolvedProvider, subject: String) async throws(SignInError) -> TokenSet {
        let name = provider.name
        guard let url = provider.endpoints.token, !url.isEmpty else {
            throw SignInError(.tokenEndpointError, "expected a token endpoint, found none", provider: name)
        }
        let request = try provider.authenticatedRequest(
            url: url, fields: [("grant_type", "authorization_code"), ("code", code)], now: clock.now(),
            clientSecretLifetime: options.clientSecretLifetime)
        let response = try await transport.send(request, endpoint: .token, provider: name)
        let tokens: TokenSet
        do throws(SignInError) {
            tokens = try TokenResponse.tokens(from: response, expected: "a token response", requireIDToken: false)
        } catch {
            var error = error
            error.provider = name
            throw error
        }
        if let idToken = tokens.idToken {
            let claims: JWTClaims
            do throws(JOSEError) {
                claims = try await keySets.verify(
                    idToken, provider: name,
                    with: provider.jwtVerifier(leeway: options.leeway, audiences: [provider.clientID]))
            } catch {
                throw IDTokenRefusals.refusal(error, token: "the code exchange's id_token", provider: name)
            }
            try IDTokenRefusals.requireSubject(
                claims, equals: subject, token: "the code exchange's id_token", provider: name)
        }
        return TokenSet(
            accessToken: tokens.accessToken, tokenType: tokens.tokenType, refreshToken: tokens.refreshToken,
            expiresIn: tokens.expiresIn, idToken: nil, scope: tokens.scope)
    }
}
