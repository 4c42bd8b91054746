import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Session issuance and validation, with no routing in it: the cookie and bearer credentials of a request,
/// the session they open (checked against both stores, through the ``SessionCache``), the idle timeout, new
/// sessions, bearer refresh and the ends of sessions. Every route handler and
/// ``SignInServer/signedInUser(_:)`` go through it.
final class SessionService: Sendable {
    let options: SignInServer.Options
    let sessions: any SessionStore
    let accounts: any AccountStore
    /// Sessions recently found valid (see ``SignInServer/Options/sessionCacheLifetime``).
    let cache: SessionCache
    let cookies: CookiePolicy
    let clock: any WallClock
    let random: BufferedRandom
    let logger: any ServerLogger

    /// - Parameter checkAnswer: `/auth/check`'s answer for a session asked without a query, prepared once per
    ///   cache entry (``SessionCache/prepare``).
    init(
        options: SignInServer.Options, stores: SignInServer.Stores, cookies: CookiePolicy, clock: any WallClock,
        random: BufferedRandom, logger: any ServerLogger,
        checkAnswer: @escaping @Sendable (CurrentSession) -> HTTPServerResponse? = { _ in nil }
    ) {
        self.options = options
        self.sessions = stores.sessions
        self.accounts = stores.accounts
        self.cache = SessionCache(lifetime: options.sessionCacheLifetime, prepare: checkAnswer)
        self.cookies = cookies
        self.clock = clock
        self.random = random
        self.logger = logger
    }

    /// The session of `request`, or `nil` when it has no cookie or bearer token, the session is unknown, expired
    /// or of the other kind, or its identity was removed, moved to another user or disabled since. A bearer token
    /// that a refresh already replaced ends its whole refresh chain (``endChainIfReused(_:changes:)``) and opens nothing.
    ///
    /// - Parameter cached: whether a session found valid a moment ago (``SessionCache``) may answer; only
    ///   for the read-only routes.
    /// - Throws: ``ServerError`` `store_unavailable` when a store fails, `duplicate_cookie` when the request
    ///   carries the session cookie twice, `ambiguous_credentials` with both a cookie and a bearer token.
    func current(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError) -> CurrentSession? {
        guard let credential = try credential(request) else { return nil }
        let id = credential.id
        var session: CurrentSession?
        if cached {
            // Concurrent requests for one session share the store read (see `SessionCache`).
            session = try await cache.session(
                id: id, now: { [clock] in clock.now() },
                read: { () async throws(ServerError) -> CurrentSession? in try await read(id: id) })
            // A session idle too long, or whose last use is due to be written, is asked of the stores.
            if let found = session, idleState(found.record, now: clock.now()) != .fresh {
                session = try await read(id: id)
            }
        } else {
            session = try await read(id: id)
        }
        // A token opens only its own kind of session: a bearer token is no cookie, and the reverse.
        guard let session, session.record.kind == credential.kind else {
            if session == nil, credential.kind == .bearer {
                // Not a change the caller asked for: the cache forgets the chain once it has ended.
                try await changing { changes async throws(ServerError) in
                    try await endChainIfReused(id, changes: changes)
                }
            }
            return nil
        }
        return session
    }

    /// The cache entry of `request`'s session cookie (its session and prepared check answer) when the cache holds
    /// it and it may answer at `now` without the stores or a task: a cookie session, neither idle nor due for its
    /// last use to be written. `nil` when ``current(_:cached:)`` must decide: no cookie or a duplicated one, a
    /// session not cached, of the other kind or no longer fresh.
    func cachedCookieEntry(_ request: HTTPServerRequest, now: Date) -> SessionCache.Entry? {
        guard let id = (try? cookieValue(request)) ?? nil, let entry = cache.entry(id: id, now: now),
            // The cache holds both kinds: a session cookie opens only a cookie session, never a bearer one.
            entry.session.record.kind == .cookie, idleState(entry.session.record, now: now) == .fresh
        else { return nil }
        return entry
    }

    /// The session of `request`.
    ///
    /// - Throws: ``ServerError`` `not_signed_in` (401) without one.
    func require(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError) -> CurrentSession {
        guard let session = try await current(request, cached: cached) else {
            throw ServerError(.notSignedIn, "expected a signed-in session, found none", status: 401)
        }
        return session
    }

    /// The session `id` as both stores hold it now (of either kind), or `nil` when it is unknown, expired, idle, no
    /// session (a ``SessionKind/rotated`` record), or its identity was removed, moved to another user or disabled
    /// since. A use due to be written is written.
    ///
    /// - Throws: ``ServerError`` `store_unavailable` when a store fails.
    func read(id: String) async throws(ServerError) -> CurrentSession? {
        do throws(StoreError) {
            guard var record = try await sessions.session(id: id), record.kind.isSession else { return nil }
            let now = clock.now()
            switch idleState(record, now: now) {
            case .fresh:
                break
            case .due:
                try await sessions.touchSession(id: id, lastUsedAt: now)
                record = record.used(at: now)
            case .idle:
                return nil
            }
            guard let identity = try await accounts.identity(record.identity),
                identity.userID == record.userID, !identity.isDisabled
            else { return nil }
            return CurrentSession(id: id, record: record, identity: identity)
        } catch {
            throw ServerError(error, while: "look up the session", store: "sessions")
        }
    }

    /// Where `record` stands at `now` against `server.session_idle_timeout` (always ``IdleState/fresh`` when it
    /// is off): idle once its written last use is a whole timeout old, due for a write once it is
    /// ``SignInServer/Options/idleRenewalInterval`` old. A renewal only moves the last use: the session still
    /// ends at its `expiresAt`.
    func idleState(_ record: SessionRecord, now: Date) -> IdleState {
        guard let timeout = options.sessionIdleTimeout, let interval = options.idleRenewalInterval else {
            return .fresh
        }
        let unused = now.timeIntervalSince(record.lastUsedAt)
        if unused >= timeout { return .idle }
        return unused >= interval ? .due : .fresh
    }
}
