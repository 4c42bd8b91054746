public import AuthFlowHTTP

extension OAuthFlow {
    /// What the driver must do next.
    public enum Action: Sendable {
        /// Store ``AuthorizationRedirect/record`` for ``AuthorizationRedirect/ttl`` seconds, then redirect the
        /// browser to ``AuthorizationRedirect/url``.
        case redirect(AuthorizationRedirect)
        /// Take (read and delete, atomically) the flow record stored under `state`, then call
        /// ``OAuthFlow/flowRecordTaken(_:now:)``.
        case takeFlowRecord(state: String)
        /// Hand any ``TokenExchange/unverifiedProfile`` to the application first, then send
        /// ``TokenExchange/request`` and call ``OAuthFlow/tokenResponseReceived(_:now:)``.
        case exchangeCode(TokenExchange)
        /// Obtain the provider's JWKS, then call ``OAuthFlow/jwksReceived(_:fetchedFromProvider:now:)``.
        case fetchJWKS(JWKSFetch)
        /// Send this userinfo request, then call ``OAuthFlow/userinfoResponseReceived(_:now:)``.
        case fetchUserinfo(HTTPClientRequest)
        /// The sign-in succeeded.
        case complete(SignInResult)
        /// The sign-in was refused.
        case fail(SignInError)
    }

    /// The first half of a sign-in: where to send the browser and what to store.
    public struct AuthorizationRedirect: Sendable {
        /// The provider's authorization URL with every parameter.
        public let url: String
        /// The record to store under its `state`.
        public let record: FlowRecord
        /// How long to keep the record, in seconds.
        public let ttl: Double
    }

    /// The code exchange to perform.
    public struct TokenExchange: Sendable {
        /// The token request (POST form, or GET with query for `client_secret_get`).
        public let request: HTTPClientRequest
        /// Unsigned profile data from the callback, to store before the exchange can fail.
        public let unverifiedProfile: UnverifiedProfile?
    }

    /// Which JWKS to obtain.
    public struct JWKSFetch: Sendable, Hashable {
        /// The provider's `jwks_uri`.
        public let url: String
        /// `true` when the cached set lacked the token's key: refetch (rate-limited) instead of using the cache.
        public let forceRefresh: Bool
        /// The `kid` that was not found, when refreshing.
        public let keyID: String?
        /// The id_token being verified, so a cache can run its own rate-limited unknown-key refetch.
        public let idToken: String
    }
}
