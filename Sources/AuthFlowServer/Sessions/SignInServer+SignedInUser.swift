import AuthFlow
public import AuthFlowHTTP

extension SignInServer {
    /// The signed-in user of `request`, or `nil` when it carries no session cookie, the session is unknown or
    /// expired, or its identity was removed, moved to another user or disabled since (the same check as
    /// `GET /auth/session`).
    ///
    /// - Throws: ``ServerError`` `store_unavailable` (503) when a store fails.
    public func signedInUser(_ request: HTTPServerRequest) async throws(ServerError) -> SignedInUser? {
        guard let session = try await context.sessions.current(request) else { return nil }
        let trace = context.options.keepsTraces ? context.traces.session(digest: TraceLog.digest(session.id)) : nil
        return SignedInUser(
            userID: session.record.userID, identity: session.identity, expiresAt: session.record.expiresAt,
            trace: trace)
    }
}
