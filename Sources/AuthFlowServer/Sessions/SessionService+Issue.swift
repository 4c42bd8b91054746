import AuthFlow
import AuthFlowJOSE
import Foundation

extension SessionService {
    /// Stores a new session of `kind` for `identity` under a fresh random id (32 bytes, base64url: no
    /// fixation): `session_ttl` for a cookie; for a bearer session `native_session_ttl`, cut at the end of its
    /// refresh chain (``bearerExpiry(now:chainStart:)``), which begins at `chainStart` (a refresh passes its
    /// chain's; a sign-in begins one now). A bearer session's `createdAt` is its chain's start. `providerSessionID`
    /// is the id_token's `sid`, kept for back-channel logout. Returns the id and the record.
    func issue(
        for identity: LinkedIdentity, kind: SessionKind, providerSessionID: String?, groups: [String] = [],
        roles: [String] = [], tenant: String? = nil, agent: String? = nil, chainStart: Date? = nil,
        authentication: SessionAuthentication = .init()
    ) async throws(ServerError) -> (id: String, record: SessionRecord) {
        let id = Base64URL.encode(random.bytes(32))
        let now = clock.now()
        let createdAt = kind == .bearer ? chainStart ?? now : now
        let expiresAt =
            kind == .bearer
            ? bearerExpiry(now: now, chainStart: createdAt) : now.addingTimeInterval(options.sessionTTL)
        let record = SessionRecord(
            userID: identity.userID, provider: identity.provider, subject: identity.subject, createdAt: createdAt,
            expiresAt: expiresAt, providerSessionID: providerSessionID, kind: kind, groups: groups, lastUsedAt: now,
            agent: agent, roles: roles, tenant: tenant
        ).authenticated(at: authentication.authTime, acr: authentication.acr)
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
        tenant: String? = nil, agent: String? = nil, authentication: SessionAuthentication = .init()
    ) async throws(ServerError) -> (id: String, cookie: String) {
        let (id, _) = try await issue(
            for: identity, kind: .cookie, providerSessionID: providerSessionID, groups: groups, roles: roles,
            tenant: tenant, agent: agent, authentication: authentication)
        return (id, cookies.sessionCookie(id, maxAge: Int(options.sessionTTL.rounded(.down))))
    }

    /// Replaces the bearer session `current` with a new one of the same refresh chain: it keeps the chain's start
    /// (`createdAt`), its groups and provider session, and ends at the earlier of `native_session_ttl` from now and
    /// the chain's end (`native_session_max_age` from the sign-in). The old token ends first, so of two refreshes
    /// with one token only one succeeds, and leaves a marker until the chain's end: presented again, it ends the
    /// chain (``endChainIfReused(_:changes:)``). The old session is noted in `changes`.
    ///
    /// - Throws: ``ServerError`` `session_expired` (401) at or past the chain's end, `not_signed_in` (401) when the
    ///   old session ended meanwhile or its chain was ended for a reuse while this refresh ran.
    func refresh(_ current: CurrentSession, changes: SessionChangeLog) async throws(ServerError)
        -> (id: String, record: SessionRecord)
    {
        changes.noteChanged(session: current.id)
        let now = clock.now()
        let start = current.record.createdAt
        guard now < chainEnd(from: start) else {
            throw ServerError(
                .sessionExpired,
                "expected a bearer session signed in less than server.native_session_max_age "
                    + "(\(Int(options.nativeSessionMaxAge))s) ago, found one signed in "
                    + "\(Int(now.timeIntervalSince(start)))s ago; sign in again", status: 401)
        }
        try await rotate(current, now: now)
        let issued = try await issue(
            for: current.identity, kind: .bearer, providerSessionID: current.record.providerSessionID,
            groups: current.record.groups, roles: current.record.roles, tenant: current.record.tenant,
            agent: current.record.agent, chainStart: start)
        try await checkChainLives(current.record, issued: issued.id)
        return issued
    }

    /// Ends the session `credential` opens (only one of the credential's kind: a bearer token sent as a cookie
    /// ends nothing), or with `everywhere` every session of its user when it is still live. Returns the ended
    /// session's record, `nil` when there was none. A bearer token that a refresh already replaced ends its
    /// refresh chain (``endChainIfReused(_:changes:)``). What ends is noted in `changes`.
    func end(_ credential: SessionCredential, everywhere: Bool, changes: SessionChangeLog) async throws(ServerError)
        -> SessionRecord?
    {
        changes.noteChanged(session: credential.id)
        let stored: SessionRecord?
        do throws(StoreError) {
            stored = try await sessions.session(id: credential.id)
        } catch {
            throw ServerError(error, while: "end the session", store: "sessions")
        }
        guard let record = stored else {
            if credential.kind == .bearer { try await endChainIfReused(credential.id, changes: changes) }
            return nil
        }
        guard record.kind == credential.kind else { return nil }
        do throws(StoreError) {
            if everywhere, idleState(record, now: clock.now()) != .idle {
                try await endEverySession(of: record.userID, changes: changes)
            } else if try await sessions.deleteSession(id: credential.id) {
                logger.log(.info, "signed out", metadata: ["session": record.kind.rawValue])
                audit(
                    .sessionsRevoked(
                        record.userID, actor: .user, scope: "session", count: 1, provider: record.identity.provider,
                        kind: record.kind.rawValue))
            }
            return record
        } catch {
            throw ServerError(error, while: "end the session", store: "sessions")
        }
    }

    /// Ends every session of `user` (all its browsers and apps), and the markers of its refresh chains; the user is
    /// noted in `changes`.
    func endEverySession(of user: UserID, changes: SessionChangeLog) async throws(StoreError) {
        changes.noteChanged(user: user)
        let ended = try await sessions.endSessions(of: user)
        logger.log(.info, "signed out everywhere", metadata: ["sessions": String(ended)])
        audit(.sessionsRevoked(user, actor: .user, scope: "user", count: ended))
    }

    /// The live sessions of `user` (past neither their lifetime nor the idle timeout; never a refresh chain's
    /// ``SessionKind/rotated`` record).
    func live(of user: UserID) async throws(ServerError) -> [StoredSession] {
        let now = clock.now()
        do throws(StoreError) {
            return try await sessions.sessions(userID: user).filter {
                $0.record.kind.isSession && idleState($0.record, now: now) != .idle
            }
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

    /// Ends the live session of `user` listed as `publicID` (``publicID(digest:)``) and returns it; the user is noted
    /// in `changes`.
    ///
    /// - Throws: ``ServerError`` `session_not_found` (404) when it names no live session of this user.
    func revoke(publicID wanted: String, of user: UserID, changes: SessionChangeLog) async throws(ServerError)
        -> StoredSession
    {
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
        changes.noteChanged(user: user)
        do throws(StoreError) {
            try await sessions.deleteSession(digest: target.digest)
        } catch {
            throw ServerError(error, while: "end the session", store: "sessions")
        }
        logger.log(.info, "session revoked", metadata: ["session": target.record.kind.rawValue])
        audit(
            .sessionsRevoked(
                user, actor: .user, scope: "session", count: 1, provider: target.record.identity.provider,
                kind: target.record.kind.rawValue))
        return target
    }
}
