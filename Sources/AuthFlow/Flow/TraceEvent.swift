package import Foundation

/// One recorded step of a sign-in, so the flow can be shown and debugged step by step.
///
/// Never contains a token, code, state, nonce or secret.
package struct TraceEvent: Sendable, Hashable {
    /// The steps of a sign-in.
    package enum Step: String, Sendable, Hashable {
        /// The authorization URL was built and the flow record prepared.
        case authorizationRedirect = "authorization_redirect"
        /// The callback was checked against the stored flow record.
        case callback
        /// The authorization code was exchanged at the token endpoint.
        case tokenExchange = "token_exchange"
        /// The provider's JWKS was obtained (from cache or fetched).
        case jwks
        /// The id_token was verified.
        case idTokenVerification = "id_token_verification"
        /// The userinfo endpoint was called.
        case userinfo
        /// The identity was established.
        case complete
    }

    /// How a step ended.
    package enum Outcome: Sendable, Hashable {
        /// The step succeeded.
        case succeeded
        /// The step failed with this sign-in error code.
        case failed(SignInError.Code)
    }

    /// Which step.
    package let step: Step
    /// When the step began (injected clock).
    package let startedAt: Date
    /// Seconds from the step's start to its end (injected clock).
    package let duration: Double
    /// The checks that passed, in order (e.g. `state`, `browser_binding`, `signature`, `iss`, `aud`, `nonce`).
    package let checks: [String]
    /// Whether the step was a network round trip to the provider.
    package let providerRoundTrip: Bool
    /// How the step ended.
    package let outcome: Outcome
    /// A short non-secret detail, e.g. `"HTTP 200"` or `"unknown kid, refetching"`.
    package let detail: String?

    /// Creates an event.
    package init(
        step: Step, startedAt: Date, duration: Double, checks: [String], providerRoundTrip: Bool, outcome: Outcome,
        detail: String? = nil
    ) {
        self.step = step
        self.startedAt = startedAt
        self.duration = duration
        self.checks = checks
        self.providerRoundTrip = providerRoundTrip
        self.outcome = outcome
        self.detail = detail
    }
}
