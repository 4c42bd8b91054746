package import AuthFlowHTTP
package import AuthFlowJOSE
package import Foundation

// One action type per event, so the driver handles exactly what each event can lead to.
extension OAuthFlow {
    /// What to do after ``OAuthFlow/callbackReceived(method:parameters:flowRecord:now:)``.
    package enum CallbackAction: Sendable {
        /// The browser's flow cookie matched the callback: mark `state` spent until `until`
        /// (`FlowStore/markSpent(state:until:)`), then call ``OAuthFlow/stateSpent(_:now:)``.
        case markStateSpent(state: String, until: Date)
        /// The callback was refused.
        case fail(SignInError)
    }

    /// What to do after ``OAuthFlow/stateSpent(_:now:)``.
    package enum StateSpentAction: Sendable {
        /// Hand any ``TokenExchange/unverifiedProfile`` to the application first, then send
        /// ``TokenExchange/request`` and call ``OAuthFlow/tokenResponseReceived(_:now:)``.
        case exchangeCode(TokenExchange)
        /// The callback was refused (a replayed state, an issuer mismatch, a provider error, no code).
        case fail(SignInError)
    }

    /// What to do after ``OAuthFlow/tokenResponseReceived(_:now:)``.
    package enum TokenResponseAction: Sendable {
        /// Verify the id_token through the provider's key-set cache
        /// (``ProviderKeySets/verification(of:provider:with:)``), then call
        /// ``OAuthFlow/idTokenVerified(_:now:)``.
        case verifyIDToken(IDTokenVerification)
        /// Send this userinfo request, then call ``OAuthFlow/userinfoResponseReceived(_:now:)``.
        case fetchUserinfo(HTTPClientRequest)
        /// The token response was refused.
        case fail(SignInError)
    }

    /// What to do after ``OAuthFlow/idTokenVerified(_:now:)`` or
    /// ``OAuthFlow/userinfoResponseReceived(_:now:)``.
    package enum IdentityAction: Sendable {
        /// Send this userinfo request (the first, or the plugin's next profile resource), then call
        /// ``OAuthFlow/userinfoResponseReceived(_:now:)``.
        case fetchUserinfo(HTTPClientRequest)
        /// The sign-in succeeded.
        case complete(SignInResult)
        /// The sign-in was refused.
        case fail(SignInError)
    }

    /// The first half of a sign-in: where to send the browser and what to seal into its flow cookie.
    package struct AuthorizationRedirect: Sendable {
        /// The provider's authorization URL with every parameter.
        package let url: String
        /// The record to seal into the flow cookie.
        package let record: FlowRecord
        /// How long the flow (and its cookie) lives, in seconds.
        package let ttl: Double
    }

    /// The code exchange to perform.
    package struct TokenExchange: Sendable {
        /// The token request (POST form, or GET with query for `client_secret_get`).
        package let request: HTTPClientRequest
        /// Unsigned profile data from the callback, to store before the exchange can fail.
        package let unverifiedProfile: UnverifiedProfile?
    }

    /// The id_token to verify, and how.
    package struct IDTokenVerification: Sendable {
        /// The id_token from the token response.
        package let idToken: String
        /// The checks of the id_token verification order (docs/architecture.md) for this flow: the plugin's
        /// algorithms, issuers, audiences, leeway and, when the provider echoes it, the nonce.
        package let verifier: JWTVerifier
    }
}
