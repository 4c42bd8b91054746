public import Foundation

/// The first half of a sign-in: where to send the browser.
public struct SignInStart: Sendable {
    /// The provider's authorization URL; answer with a redirect (302) to it.
    public let redirectURL: String
    /// The `state` of this sign-in.
    package var state: String { record.state }
    /// The flow record to seal into the browser's flow cookie (``FlowRecordSeal``); nothing was stored.
    public let record: FlowRecord
    /// When the flow expires.
    public let expiresAt: Date
    /// The trace of the first step.
    package let trace: [TraceEvent]

    /// Creates a start value.
    package init(redirectURL: String, record: FlowRecord, expiresAt: Date, trace: [TraceEvent]) {
        self.redirectURL = redirectURL
        self.record = record
        self.expiresAt = expiresAt
        self.trace = trace
    }
}
