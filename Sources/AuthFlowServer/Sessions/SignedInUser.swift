public import AuthFlow
public import Foundation

/// Who is signed in on a request, for an app's own pages next to the sign-in routes
/// (``SignInServer/signedInUser(_:)``).
public struct SignedInUser: Sendable {
    /// The user the session belongs to.
    public let userID: UserID
    /// The identity the session was signed in with, as stored now (provider, subject, email, name).
    public let identity: LinkedIdentity
    /// When the session ends.
    public let expiresAt: Date
    /// The steps of the sign-in that started this session, when the server keeps traces
    /// (``SignInServer/Options/keepsTraces``) and still holds this one; `nil` otherwise.
    package let trace: [TraceEvent]?

    /// Creates the value (the server makes these; public for tests of code that receives one).
    package init(userID: UserID, identity: LinkedIdentity, expiresAt: Date, trace: [TraceEvent]?) {
        self.userID = userID
        self.identity = identity
        self.expiresAt = expiresAt
        self.trace = trace
    }
}
