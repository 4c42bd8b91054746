import AuthFlow
import AuthFlowJOSE
import Foundation

/// Bearer refresh chains (RFC 9700 §4.14.2): the bearer sessions of one native sign-in, each refresh replacing
/// the last. A chain's sessions share the sign-in time as `createdAt`, and none outlives
/// `server.native_session_max_age` from it. A refresh leaves a ``SessionKind/rotated`` marker of the old token
/// until the chain's end (under ``markerID(of:)``); the old token presented again is a reuse, which ends the
/// whole chain, the newest token too.
extension SessionService {
    /// When the refresh chain begun at `start` ends.
    func chainEnd(from start: Date) -> Date { start.addingTimeInterval(options.nativeSessionMaxAge) }

    /// When a bearer session issued at `now` in the chain begun at `chainStart` ends: `native_session_ttl` after
    /// `now`, but never after the chain's end.
    func bearerExpiry(now: Date, chainStart: Date) -> Date {
        min(now.addingTimeInterval(options.nativeSessionTTL), chainEnd(from: chainStart))
    }

    /// The id the marker of the rotated token `token` is stored under (as its digest, like every session id). It is
    /// not the token's own id, so that ending the old session and keeping its marker are two records: a second
    /// refresh with the token deletes nothing and fails.
    static func markerID(of token: String) -> String { "rotated:" + token }

    /// The id of the mark that the chain of `record` was ended for a reuse: HMAC-SHA-256 under `server.secret` of
    /// the user, the identity and the chain's start, so no client can name it.
    func endedChainID(_ record: SessionRecord) -> String {
        let start = String(Int64((record.createdAt.timeIntervalSince1970 * 1000).rounded()))
        let fields = [record.userID.rawValue, record.provider, record.subject, start].map(JSONValue.string)
        let message = Array("authflow ended chain\u{0}".utf8) + Array(JSONValue.array(fields).serialized().utf8)
        return "ended:" + Base64URL.encode(Digest.hmacSHA256(key: Array(options.secret.value.utf8), message: message))
    }

    /// Whether `record` belongs to the chain of `marker`: a bearer session or rotated record of the same user and
    /// identity, begun at the same sign-in (to the millisecond, whatever precision a store keeps).
    static func inChain(_ record: SessionRecord, of marker: SessionRecord) -> Bool {
        record.kind != .cookie && record.userID == marker.userID && record.identity == marker.identity
            && abs(record.createdAt.timeIntervalSince(marker.createdAt)) < 0.001
    }

    /// Ends the bearer session `current` for a refresh and stores its marker until the chain's end.
    ///
    /// - Throws: ``ServerError`` `not_signed_in` (401) when the session ended meanwhile (another refresh won).
    func rotate(_ current: CurrentSession, now: Date) async throws(ServerError) {
        let old = current.record
        let marker = SessionRecord(
            userID: old.userID, provider: old.provider, subject: old.subject, createdAt: old.createdAt,
            expiresAt: chainEnd(from: old.createdAt), providerSessionID: old.providerSessionID, kind: .rotated,
            lastUsedAt: now)
        let ended: Bool
        do throws(StoreError) {
            ended = try await sessions.deleteSession(id: current.id)
            if ended { try await createUnlessStored(id: Self.markerID(of: current.id), record: marker) }
        } catch {
            throw ServerError(error, while: "end the old session", store: "sessions")
        }
        guard ended else {
            throw ServerError(.notSignedIn, "expected a signed-in session, found one that just ended", status: 401)
        }
    }

    /// After a refresh in the chain of `old` stored the session `issued`: when a reuse ended the chain meanwhile
    /// (its mark is stored), `issued` ends too. The mark is written before the chain's sessions are listed, so a
    /// new session is either listed and ended there or ended here.
    ///
    /// - Throws: ``ServerError`` `not_signed_in` (401) when the chain was ended.
    func checkChainLives(_ old: SessionRecord, issued: String) async throws(ServerError) {
        do throws(StoreError) {
            guard try await sessions.session(id: endedChainID(old)) != nil else { return }
            try await sessions.deleteSession(id: issued)
        } catch {
            throw ServerError(error, while: "check the refresh chain", store: "sessions")
        }
        throw ServerError(
            .notSignedIn, "expected a live refresh chain, found one ended for a reused token", status: 401)
    }

    /// Ends the refresh chain of the bearer token `token` when a refresh already replaced it (its marker is stored):
    /// every bearer session and marker of the chain, and a warning is logged (the provider, never a token).
    ///
    /// - Throws: ``ServerError`` `store_unavailable` when the store fails.
    func endChainIfReused(_ token: String, changes: SessionChangeLog) async throws(ServerError) {
        let marker: SessionRecord?
        do throws(StoreError) {
            marker = try await sessions.session(id: Self.markerID(of: token))
        } catch {
            throw ServerError(error, while: "look up the session", store: "sessions")
        }
        guard let marker, marker.kind == .rotated else { return }
        changes.noteChanged(user: marker.userID)
        let mark = endedChainID(marker)
        let markDigest = Digest.sha256(Array(mark.utf8))
        var ended = 0
        do throws(StoreError) {
            // The mark first: a refresh racing this sweep finds it once its new session is stored (`checkChainLives`).
            try await createUnlessStored(id: mark, record: marker)
            for stored in try await sessions.sessions(userID: marker.userID)
            where stored.digest != markDigest && Self.inChain(stored.record, of: marker) {
                try await sessions.deleteSession(digest: stored.digest)
                if stored.record.kind.isSession { ended += 1 }
            }
        } catch {
            throw ServerError(error, while: "end the refresh chain", store: "sessions")
        }
        logger.log(.warning, "bearer refresh token reused; chain ended", metadata: ["provider": marker.provider])
        var event = AuditEvent.sessionsRevoked(
            marker.userID, actor: .server, scope: "refresh_chain", count: ended, provider: marker.provider,
            kind: "bearer")
        event.code = "refresh_token_reused"
        audit(event)
    }

    /// Stores `record` under `id` unless a record is stored there already.
    private func createUnlessStored(id: String, record: SessionRecord) async throws(StoreError) {
        do throws(StoreError) {
            try await sessions.createSession(id: id, record: record)
        } catch {
            guard error.code == .duplicateSession else { throw error }
        }
    }
}
