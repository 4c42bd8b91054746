import AuthFlow
import AuthFlowJOSE
import Foundation

extension SessionService {
    /// Stores a new session of `kind` for `identity` under a fresh random id (32 bytes, base64url: no
    /// fixation): `session_ttl` for a cookie, `native_session_ttl` for a bearer session. `providerSessionID` is
    /// the id_token's `sid`, kept for back-channel logout. Returns the id and the record.
    func issue(
        for identity: LinkedIdentity, kind: SessionKind, providerSessionID: String?, groups: [String] = [],
        roles: [String] = [], tenant: String? = nil, agent: String? = nil
    ) async throws(ServerError) -> (id: String, record: SessionRecord) {
        let id = Base64URL.encode(random.bytes(32))
        let now = clock.now()
        let ttl = kind == .bearer ? options.nativeSessionTTL : options.sessionTTL
        let record = SessionRecord(
            userID: identity.userID, provider: identity.provider, subject: identity.subject, createdAt: now,
            expiresAt: now.addingTimeInterval(ttl), providerSessionID: providerSessionID, kind: kind, groups: groups,
            agent: agent, roles: roles, tenant: tenant)
        do throws(StoreError) {
            try await sessions.createSession(id: id, record: record)
        } catch {
            throw ServerError(error, while: "create the session", store: "sessions")
        }
        return (id, record)
    }

    /// Starts a new cookie session for `identity` and returns its id and its `Set-Cookie` value.
    func issueCookieSession(
        for identity: LinkedIdentity, providerSessionID: String? = nil, groups: [String] = [], roles: [String] = [],
        tenant: String? = nil, agent: String? = nil
    ) async throws(ServerError) -> (id: String, cookie: String) {
        let (id, _) = try await issue(
            for: identity, kind: .cookie, providerSessionID: providerSessionID, groups: groups, roles: roles,
            tenant: tenant, agent: agent)
        return (id, cookies.sessionCookie(id, maxAge: Int(options.sessionTTL.rounded(.down))))
    }

    /// Replaces the bearer session `current` with a new one for the same sign-in (another `native_session_ttl`).
    /// The old token ends first, so of two refreshes with one token only one succeeds.
    ///
    /// - Throws: ``ServerError`` `not_signed_in` (401) when the old session ended meanwhile.
    func refresh(_ current: CurrentSession) async throws(ServerError) -> (id: String, record: SessionRecord) {
        noteChanged(session: current.id)
        let ended: Bool
        do throws(StoreError) {
            ended = try await sessions.deleteSession(id: current.id)
        } catch {
            throw ServerError(error, while: "end the old session", store: "sessions")
        }
        guard ended else {
            throw ServerError(.notSignedIn, "expected a signed-in session, found one that just ended", status: 401)
        }
        return try await issue(
            for: current.identity, kind: .bearer, providerSessionID: current.record.providerSessionID,
            groups: current.record.groups, roles: current.record.roles, tenant: current.record.tenant,
            agent: current.record.agent)
    }

    /// Ends the session `credential` opens (only one of the credential's kind: a bearer token sent as a cookie
    /// ends nothing), or with `everywhere` every session of its user when it is still live. Returns the ended
    /// session's record, `nil` when there was none.
    func end(_ credential: SessionCredential, everywhere: Bool) async throws(ServerError) -> SessionRecord? {
        noteChanged(session: credential.id)
        do throws(StoreError) {
            guard let record = try await sessions.session(id: credential.id), record.kind == credential.kind else {
                return nil
            }
            if everywhere, idleState(record, now: clock.now()) != .idle {
                try await endEverySession(of: record.userID)
            } else if try await sessions.deleteSession(id: credential.id) {
                logger.log(.info, "signed out", metadata: ["session": record.kind.rawValue])
            }
            return record
        } catch {
            throw ServerError(error, while: "end the session", store: "sessions")
        }
    }

    /// Ends every session of `user` (all its browsers and apps).
    func endEverySession(of user: UserID) async throws(StoreError) {
        noteChanged(user: user)
        let ended = try await sessions.deleteSessions(userID: user)
        logger.log(.info, "signed out everywhere", metadata: ["sessions": String(ended)])
    }

    /// The live sessions of `user` (past neither their lifetime nor the idle timeout).
    func live(of user: UserID) async throws(ServerError) -> [StoredSession] {
        let now = clock.now()
        do throws(StoreError) {
            return try await sessions.sessions(userID: user).filter { idleState($0.record, now: now) != .idle }
        } catch {
            throw ServerError(error, while: "list the sessions", store: "sessions")
        }
    }

    /// The opaque id a session is listed under: base64url of HMAC-SHA-256, keyed with `server.secret`, over the
    /// digest the store keeps (never the session token, and not the stored digest itself), cut to 128 bits.
    func publicID(digest: [UInt8]) -> String {
        let message = Array("authflow session id\u{0}".utf8) + digest
        return Base64URL.encode(Digest.hmacSHA256(key: Array(options.secret.value.utf8), message: message).prefix(16))
    }

    /// Ends the live session of `user` listed as `publicID` (``publicID(digest:)``) and returns it.
    ///
    /// - Throws: ``ServerError`` `session_not_found` (404) when it names no live session of this user.
    func revoke(publicID wanted: String, of user: UserID) async throws(ServerError) -> StoredSession {
        let live = try await live(of: user)
        guard
            let target = live.first(where: {
                ConstantTime.equals(Array(publicID(digest: $0.digest).utf8), Array(wanted.utf8))
            })
        else {
            throw ServerError(
                .sessionNotFound, "expected the id of one of this user's live sessions, found another", status: 404)
        }
        // The cache is keyed by session ids, which the list does not know: the user's entries all go.
        noteChanged(user: user)
        do throws(StoreError) {
            try await sessions.deleteSession(digest: target.digest)
        } catch {
            throw ServerError(error, while: "end the session", store: "sessions")
        }
        logger.log(.info, "session revoked", metadata: ["session": target.record.kind.rawValue])
        return target
    }
}
