public import AuthFlowHTTP
public import Foundation

extension OAuthFlow {
    /// What the driver must do next.
    public enum Action: Sendable {
        /// Seal ``AuthorizationRedirect/record`` into a flow cookie living ``AuthorizationRedirect/ttl``
        /// seconds (``FlowRecordSeal``), then redirect the browser to ``AuthorizationRedirect/url``.
        case redirect(AuthorizationRedirect)
        /// The browser's flow cookie matched the callback: mark `state` spent until `until`
        /// (``FlowStore/markSpent(state:until:)``), then call ``OAuthFlow/stateSpent(_:now:)``.
        case markStateSpent(state: String, until: Date)
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

    /// The first half of a sign-in: where to send the browser and what to seal into its flow cookie.
    public struct AuthorizationRedirect: Sendable {
        /// The provider's authorization URL with every parameter.
        public let url: String
        /// The record to seal into the flow cookie.
        public let record: FlowRecord
        /// How long the flow (and its cookie) lives, in seconds.
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
