public import Foundation

/// The first half of a sign-in: where to send the browser.
public struct SignInStart: Sendable {
    /// The provider's authorization URL; answer with a redirect (302) to it.
    public let redirectURL: String
    /// The `state` of this sign-in (already stored in the flow store).
    public let state: String
    /// When the stored flow record expires.
    public let expiresAt: Date
    /// The trace of the first step.
    public let trace: [TraceEvent]

    /// Creates a start value.
    public init(redirectURL: String, state: String, expiresAt: Date, trace: [TraceEvent]) {
        self.redirectURL = redirectURL
        self.state = state
        self.expiresAt = expiresAt
        self.trace = trace
    }
}
