import AuthFlow
import AuthFlowHTTP

/// `GET /auth/session` and `GET /auth/check`: who is signed in, for the app and for nginx `auth_request`.
struct SessionRoutes: SessionUsing {
    let sessions: SessionService
    let authCheck: AuthCheck

    /// `GET /auth/session`: the signed-in identity with exactly the keys of docs/server.md ("Routes"), or 401.
    func sessionInfo(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await requireSession(request, cached: true)
        return ResponseFactory.json(Self.sessionJSON(session))
    }

    static func sessionJSON(_ session: CurrentSession) -> JSONValue {
        let identity = session.identity
        let email: JSONValue = identity.emailVerified ? identity.email.map(JSONValue.string) ?? .null : .null
        return .object([
            "user_id": .string(session.record.userID.rawValue),
            "provider": .string(identity.provider),
            "subject": .string(identity.subject),
            "email": email,
            "email_verified": .bool(identity.emailVerified && identity.email != nil),
            "name": identity.name.map(JSONValue.string) ?? .null,
            "expires_at": .string(RequestParameters.timestamp(session.record.expiresAt)),
        ])
    }

    /// `GET /auth/check` for nginx `auth_request`: 401 without a session, 400 for a query that names no rule,
    /// else ``AuthCheck/answer(_:narrowing:)`` (the one decision ``SignInServer/handleAtOnce(_:)`` makes too).
    func check(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await requireSession(request, cached: true)
        let (narrowing, stepUp) = try AuthCheck.checkQuery(request)
        return try authCheck.answer(session, narrowing: narrowing, stepUp: stepUp)
    }
}
