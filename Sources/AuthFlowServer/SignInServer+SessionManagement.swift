import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Where a session stands against `server.session_idle_timeout`.
enum IdleState: Sendable, Equatable {
    /// Used recently enough: nothing to write (or the rule is off).
    case fresh
    /// Live, but its written last use is older than the renewal interval: this use writes it.
    case due
    /// Unused for the whole timeout: it has ended.
    case idle
}

extension SignInServer {
    /// Where `record` stands at `now` against `server.session_idle_timeout` (always ``IdleState/fresh`` when it
    /// is off): idle once its written last use is a whole timeout old, due for a write once it is
    /// ``Options/idleRenewalInterval`` old. A renewal only moves the last use: the session still ends at its
    /// `expiresAt`.
    func idleState(_ record: SessionRecord, now: Date) -> IdleState {
        guard let timeout = options.sessionIdleTimeout, let interval = options.idleRenewalInterval else {
            return .fresh
        }
        let unused = now.timeIntervalSince(record.lastUsedAt)
        if unused >= timeout { return .idle }
        return unused >= interval ? .due : .fresh
    }

    /// The groups a sign-in's session keeps: the identity's (its plugin's or claims mapping's) or, when it named
    /// none, the `groups` claim of the id_token or userinfo when that is an array of strings; bounded by
    /// ``SessionRecord/boundedGroups(_:)`` (what is left out is logged as a count, never by value).
    func sessionGroups(_ identity: VerifiedIdentity, provider: String) -> [String] {
        var groups = identity.groups
        if groups.isEmpty, let items = identity.rawClaims["groups"]?.arrayValue {
            groups = items.compactMap(\.stringValue)
        }
        guard !groups.isEmpty else { return [] }
        let bounded = SessionRecord.boundedGroups(groups)
        if bounded.dropped > 0 {
            logger.log(
                .warning, "groups left out of the session",
                metadata: [
                    "provider": provider, "count": String(bounded.dropped), "kept": String(bounded.groups.count),
                ])
        }
        return bounded.groups
    }

    /// Ends every session of `user` (all its browsers and apps), for `POST /auth/logout` with `everywhere=1`.
    func endEverySession(of user: UserID) async throws(StoreError) {
        noteChanged(user: user)
        let ended = try await stores.sessions.deleteSessions(userID: user)
        logger.log(.info, "signed out everywhere", metadata: ["sessions": String(ended)])
    }

    /// Whether `POST /auth/logout` asks to end every session: `everywhere` in the query or form, `1` or `true`
    /// (`0`, `false` or absent: only this one).
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for another value or more than one.
    static func everywhereParameter(_ request: HTTPServerRequest) throws(ServerError) -> Bool {
        var values = request.query.filter { $0.0 == "everywhere" }.map(\.1)
        if request.method == "POST", let fields = try? request.formValues("everywhere") {
            values += fields
        }
        guard values.count <= 1 else {
            throw ServerError(.invalidRequest, "expected at most one everywhere, found \(values.count)", status: 400)
        }
        switch values.first {
        case nil, "0", "false": return false
        case "1", "true": return true
        case let value?:
            throw ServerError(
                .invalidRequest,
                "expected everywhere=1 or everywhere=0, found "
                    + JSONValue.string(String(value.prefix(16))).serialized(), status: 400)
        }
    }

    /// The opaque id a session is listed under: base64url of HMAC-SHA-256, keyed with `server.secret`, over the
    /// digest the store keeps (never the session token, and not the stored digest itself), cut to 128 bits.
    func publicSessionID(digest: [UInt8]) -> String {
        let message = Array("authflow session id\u{0}".utf8) + digest
        return Base64URL.encode(Digest.hmacSHA256(key: Array(options.secret.value.utf8), message: message).prefix(16))
    }

    /// The live sessions of `user` (past neither their lifetime nor the idle timeout).
    func liveSessions(of user: UserID) async throws(ServerError) -> [StoredSession] {
        let now = clock.now()
        do throws(StoreError) {
            return try await stores.sessions.sessions(userID: user).filter { idleState($0.record, now: now) != .idle }
        } catch {
            throw ServerError(error, while: "list the sessions", store: "sessions")
        }
    }

    /// `GET /auth/sessions`: the signed-in user's live sessions, oldest first, as
    /// `{"sessions": [{"id", "kind", "provider", "created_at", "last_used_at", "expires_at", "agent", "current"}]}`;
    /// 401 without a session. `id` is opaque (``publicSessionID(digest:)``), `agent` a short summary or null.
    func listSessions(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await requireSession(request)
        let current = Digest.sha256(Array(session.id.utf8))
        let items: [JSONValue] = try await liveSessions(of: session.record.userID).map { stored in
            .object([
                "id": .string(publicSessionID(digest: stored.digest)),
                "kind": .string(stored.record.kind.rawValue),
                "provider": .string(stored.record.provider),
                "created_at": .string(Self.timestamp(stored.record.createdAt)),
                "last_used_at": .string(Self.timestamp(stored.record.lastUsedAt)),
                "expires_at": .string(Self.timestamp(stored.record.expiresAt)),
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
    func revokeSession(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        try checkOrigin(request)
        let wanted = try Self.revokedSessionID(request)
        let session = try await requireSession(request)
        let user = session.record.userID
        let sessions = try await liveSessions(of: user)
        guard
            let target = sessions.first(where: {
                ConstantTime.equals(Array(publicSessionID(digest: $0.digest).utf8), Array(wanted.utf8))
            })
        else {
            throw ServerError(
                .sessionNotFound, "expected the id of one of this user's live sessions, found another", status: 404)
        }
        // The cache is keyed by session ids, which the list does not know: the user's entries all go.
        noteChanged(user: user)
        do throws(StoreError) {
            try await stores.sessions.deleteSession(digest: target.digest)
        } catch {
            throw ServerError(error, while: "end the session", store: "sessions")
        }
        logger.log(.info, "session revoked", metadata: ["session": target.record.kind.rawValue])
        var response = HTTPServerResponse.empty(status: 204)
        if case .cookie = try sessionCredential(request),
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
