import AuthFlow
import AuthFlowHTTP
import Foundation
import Synchronization

/// Sessions this server found valid in the last moment, so that `GET /auth/check` and `GET /auth/session`
/// (asked on every page view behind nginx `auth_request`) need not read both stores each time.
///
/// Revocation stays prompt:
/// - a route that changes sessions or accounts (logout, disconnect, account deletion, a sign-in, a provider
///   event) names what it changes (``SessionChanges``) before changing it, and once it has finished those
///   entries are forgotten: the user's, the identity's or the session's, nothing else. An entry filled by a
///   read that began before any such change is refused (an epoch counter taken before the store read), so the
///   change takes effect on the very next request; requests that change nothing (an unknown path, the
///   read-only routes) leave the cache alone;
/// - a change made elsewhere (another instance sharing the stores, or code writing the stores directly)
///   takes effect within ``SignInServer/Options/sessionCacheLifetime`` (1 s by default; 0 turns the cache
///   off);
/// - a session past its `expiresAt` is never answered from the cache; with `server.session_idle_timeout` the
///   server also passes over an entry that went idle or whose last use is due to be written.
///
/// Entries are keyed by the session cookie's value and never leave the process. The number of entries is
/// capped; when full, the cache starts over.
///
/// When an entry is missing or stale, concurrent requests for the same session share one store read
/// (``session(id:now:read:)``) instead of each making their own, as a burst of checks arriving when an entry
/// expires would. A request shares a read only when no change happened between the read's start and the
/// request's arrival, and gets its answer only when none happened before the read finished either; otherwise
/// it reads the stores itself, so sharing never serves what a finished change revoked.
final class SessionCache: Sendable {
    /// How long an entry may answer, in seconds; 0 disables the cache.
    let lifetime: Double
    /// The most entries kept at once.
    let capacity: Int
    let state = Mutex(State())
    /// What an entry of a cookie session prepares once for the requests it answers: `/auth/check`'s answer
    /// (``AuthCheck/preparedAnswer(_:)``), so a cached check builds no identity headers.
    let prepare: @Sendable (CurrentSession) -> HTTPServerResponse?

    init(
        lifetime: Double, capacity: Int = 10_000,
        prepare: @escaping @Sendable (CurrentSession) -> HTTPServerResponse? = { _ in nil }
    ) {
        self.lifetime = lifetime.isFinite ? max(0, lifetime) : 0
        self.capacity = max(1, capacity)
        self.prepare = prepare
    }

    /// The entry for `session`, stored at `storedAt`, with what it prepares (made outside the lock).
    func entry(_ session: CurrentSession, storedAt: Date) -> Entry {
        Entry(
            session: session, storedAt: storedAt,
            checkAnswer: session.record.kind == .cookie ? prepare(session) : nil)
    }

    var isEnabled: Bool { lifetime > 0 }

    /// The current epoch; take it before reading the stores and hand it to ``store(_:id:epoch:now:)``.
    func epoch() -> UInt64 {
        state.withLock { $0.epoch }
    }

    /// The session cached under `id`, when it is younger than the lifetime, not expired, and no change
    /// happened since it was read.
    func session(id: String, now: Date) -> CurrentSession? {
        entry(id: id, now: now)?.session
    }

    /// The entry cached under `id` (its session and prepared answer), when it is younger than the lifetime, not
    /// expired, and no change happened since it was read.
    func entry(id: String, now: Date) -> Entry? {
        guard isEnabled else { return nil }
        return state.withLock { state -> Entry? in
            guard let entry = state.entries[id] else { return nil }
            let age = now.timeIntervalSince(entry.storedAt)
            guard age >= 0, age < lifetime, now < entry.session.record.expiresAt else {
                state.entries[id] = nil
                return nil
            }
            return entry
        }
    }

    /// The session cached under `id`, or else the answer of `read` (which reads the stores): shared with the
    /// concurrent callers for the same `id`, and remembered when no change happened while it ran. A cached or
    /// shared session may be of either kind: the caller checks it against its credential.
    func session<Failure: Error>(
        id: String, now: () -> Date, read: () async throws(Failure) -> CurrentSession?
    ) async throws(Failure) -> CurrentSession? {
        guard isEnabled else { return try await read() }
        var mayJoin = true
        while true {
            let at = now()
            var stale: [CheckedContinuation<Shared, Never>] = []
            let step = state.withLock { state -> Step in
                if let entry = state.entries[id] {
                    let age = at.timeIntervalSince(entry.storedAt)
                    if age >= 0, age < lifetime, at < entry.session.record.expiresAt { return .cached(entry.session) }
                    state.entries[id] = nil
                }
                if mayJoin, let flight = state.flights[id], flight.epoch == state.epoch { return .join(flight.token) }
                // A flight begun before a change finishes alone (its waiters read themselves): a new one starts.
                stale = state.flights[id]?.waiters ?? []
                state.nextToken &+= 1
                let token = state.nextToken
                state.flights[id] = Flight(token: token, epoch: state.epoch)
                return .lead(token: token, epoch: state.epoch)
            }
            for waiter in stale { waiter.resume(returning: .readYourself) }
            switch step {
            case .cached(let session):
                return session
            case .join(let token):
                let shared = await withCheckedContinuation { (waiter: CheckedContinuation<Shared, Never>) in
                    let joined = state.withLock { state -> Bool in
                        guard state.flights[id]?.token == token, state.flights[id]?.epoch == state.epoch else {
                            return false
                        }
                        state.flights[id]?.waiters.append(waiter)
                        return true
                    }
                    if !joined { waiter.resume(returning: .readYourself) }
                }
                if case .answer(let session) = shared { return session }
                mayJoin = false
            case .lead(let token, let epoch):
                return try await lead(id: id, token: token, epoch: epoch, now: now, read: read)
            }
        }
    }

    /// Reads `id` for the flight `token` begun at `epoch`, remembers the answer when no change happened
    /// meanwhile, and hands it to the requests that joined (or tells them to read themselves).
    private func lead<Failure: Error>(
        id: String, token: UInt64, epoch: UInt64, now: () -> Date, read: () async throws(Failure) -> CurrentSession?
    ) async throws(Failure) -> CurrentSession? {
        let result: Result<CurrentSession?, Failure>
        do throws(Failure) {
            result = .success(try await read())
        } catch {
            result = .failure(error)
        }
        let finished = now()
        let entry: Entry? =
            if case .success(let session?) = result { self.entry(session, storedAt: finished) } else { nil }
        let waiters = state.withLock { state -> (waiting: [Waiter], unchanged: Bool) in
            var waiting: [Waiter] = []
            if state.flights[id]?.token == token {
                waiting = state.flights[id]?.waiters ?? []
                state.flights[id] = nil
            }
            let unchanged = state.epoch == epoch
            if unchanged, let entry {
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
                state.entries[id] = entry
            }
            return (waiting, unchanged)
        }
        let shared: Shared
        if waiters.unchanged, case .success(let session) = result {
            shared = .answer(session)
        } else {
            shared = .readYourself
        }
        for waiter in waiters.waiting { waiter.resume(returning: shared) }
        return try result.get()
    }

    /// How many requests wait for the store read in flight for `id`; `nil` when none is in flight.
    func waiting(for id: String) -> Int? {
        state.withLock { $0.flights[id]?.waiters.count }
    }
}
