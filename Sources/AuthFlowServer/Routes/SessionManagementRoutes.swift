import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE

/// `GET /auth/sessions` and `POST /auth/sessions/revoke`: a signed-in user's own sessions.
struct SessionManagementRoutes: SessionUsing {
    let sessions: SessionService
    let cookies: CookiePolicy

    /// `GET /auth/sessions`: the signed-in user's live sessions, oldest first, as
    /// `{"sessions": [{"id", "kind", "provider", "created_at", "last_used_at", "expires_at", "agent", "current"}]}`;
    /// 401 without a session. `id` is opaque (``SessionService/publicID(digest:)``), `agent` a short summary or null.
    func listSessions(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await requireSession(request)
        let current = Digest.sha256(Array(session.id.utf8))
        let items: [JSONValue] = try await sessions.live(of: session.record.userID).map { stored in
            .object([
                "id": .string(sessions.publicID(digest: stored.digest)),
                "kind": .string(stored.record.kind.rawValue),
                "provider": .string(stored.record.provider),
                "created_at": .string(RequestParameters.timestamp(stored.record.createdAt)),
                "last_used_at": .string(RequestParameters.timestamp(stored.record.lastUsedAt)),
                "expires_at": .string(RequestParameters.timestamp(stored.record.expiresAt)),
                "agent": stored.record.agent.map(JSONValue.string) ?? .null,
                "current": .bool(ConstantTime.equals(stored.digest, current)),
            ])
        }
        return ResponseFactory.json(.object(["sessions": .array(items)]))
    }

    /// `POST /auth/sessions/revoke` with a JSON body `{"id": ID}` (an id of ``listSessions(_:)``): ends that
    /// session of the signed-in user; 204. Same-origin rules as the other POSTs.
    ///
    /// - Throws: ``ServerError`` `not_signed_in` (401), `invalid_request` (400) for another body,
    ///   `session_not_found` (404) for an id that names no live session of this user (another user's too).
    func revokeSession(_ request: HTTPServerRequest, changes: SessionChangeLog) async throws(ServerError)
        -> HTTPServerResponse
    {
        let wanted = try Self.revokedSessionID(request)
        let session = try await requireSession(request)
        let target = try await sessions.revoke(publicID: wanted, of: session.record.userID, changes: changes)
        var response = HTTPServerResponse.empty(status: 204)
        if case .cookie = try sessions.credential(request),
            ConstantTime.equals(target.digest, Digest.sha256(Array(session.id.utf8)))
        {
            response.addCookie(cookies.clearedSessionCookie())
        }
        return response
    }

    /// The `id` of a revoke request's JSON body.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) unless the body is a JSON object with a non-empty string
    ///   `id` of at most 64 bytes.
    static func revokedSessionID(_ request: HTTPServerRequest) throws(ServerError) -> String {
        let bytes: [UInt8]
        do throws(HTTPServerError) {
            bytes = try request.jsonBody()
        } catch {
            throw ServerError(.invalidRequest, error.message, status: 400)
        }
        guard let object = try? JSONValue.parse(bytes), case .object = object,
            let id = object["id"]?.stringValue, !id.isEmpty, id.utf8.count <= 64
        else {
            throw ServerError(
                .invalidRequest, "expected a JSON object {\"id\": \"…\"} naming a session of GET /auth/sessions",
                status: 400)
        }
        return id
    }
}
