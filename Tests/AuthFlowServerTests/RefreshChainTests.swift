import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization
import Testing

@testable import AuthFlowServer

/// Bearer refresh chains (RFC 9700 §4.14.2) on the session service: an absolute lifetime from the sign-in, and a
/// rotated token presented again ending the whole chain. Real in-memory stores, a manual clock.
@Suite("Bearer refresh chains: an absolute lifetime from the sign-in, and reuse ending the chain")
struct RefreshChainTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let logger = RecordingLogger()
    let stores: SignInServer.Stores
    let key = IdentityKey(provider: "google", subject: "alice-1")

    init() {
        stores = .memory(clock: clock)
    }

    func service(
        ttl: Double = 86_400, maxAge: Double = 3 * 86_400, sessions: (any SessionStore)? = nil,
        cacheLifetime: Double = 0
    ) -> SessionService {
        var options = SignInServer.Options(
            publicURL: "http://localhost:8080", secret: Secret(String(repeating: "s", count: 32)), sessionTTL: 3600)
        options.nativeSessionTTL = ttl
        options.nativeSessionMaxAge = maxAge
        options.sessionCacheLifetime = cacheLifetime
        var stores = self.stores
        if let sessions { stores.sessions = sessions }
        return SessionService(
            options: options, stores: stores, cookies: CookiePolicy(publicURL: options.publicURL), clock: clock,
            random: BufferedRandom(source: SystemRandom()), logger: logger)
    }

    func identity() async throws -> LinkedIdentity {
        let account = try await stores.accounts.createUser(UserID(rawValue: "u1"), identity: key, profile: .init())
        return try #require(account.identities.first)
    }

    func bearer(_ token: String) -> HTTPServerRequest {
        HTTPServerRequest(
            method: "GET", path: "/auth/session", headers: ["Authorization": "Bearer \(token)"],
            remoteAddress: "127.0.0.1")
    }

    /// Refreshes the bearer session `token` and returns the new token and its record.
    func refresh(_ token: String, with sessions: SessionService) async throws -> (id: String, record: SessionRecord) {
        try await sessions.changing {
            try await sessions.refresh(try await sessions.require(bearer(token)), changes: $0)
        }
    }

    @Test func eachRefreshEndsAtTheEarlierOfTheSessionLifetimeAndTheChainsEnd() async throws {
        let sessions = service()
        let signIn = clock.now()
        let first = try await sessions.issue(for: try await identity(), kind: .bearer, providerSessionID: nil)
        #expect(first.record.createdAt == signIn && first.record.expiresAt == signIn + 86_400)
        clock.advance(by: 20 * 3600)
        let second = try await refresh(first.id, with: sessions)
        #expect(second.record.createdAt == signIn)
        #expect(second.record.lastUsedAt == clock.now())
        #expect(second.record.expiresAt == clock.now() + 86_400)
        clock.advance(by: 20 * 3600)
        let third = try await refresh(second.id, with: sessions)
        #expect(third.record.expiresAt == clock.now() + 86_400)
        clock.advance(by: 20 * 3600)
        // 60 hours after the sign-in, a day more would pass the chain's end (72 hours): the session ends there.
        let fourth = try await refresh(third.id, with: sessions)
        #expect(fourth.record.createdAt == signIn)
        #expect(fourth.record.expiresAt == signIn + 3 * 86_400)
        #expect(try await stores.sessions.session(id: fourth.id)?.expiresAt == signIn + 3 * 86_400)
        clock.advance(by: 12 * 3600)
        #expect(try await sessions.current(bearer(fourth.id)) == nil)
    }

    @Test func aRefreshAtOrPastTheChainsEndIsRefused() async throws {
        // Issued under a longer max age, refreshed under a shorter one: the session lives, its chain has ended.
        let first = try await service(ttl: 5 * 86_400, maxAge: 10 * 86_400).issue(
            for: try await identity(), kind: .bearer, providerSessionID: nil)
        let shorter = service(ttl: 86_400, maxAge: 2 * 86_400)
        clock.advance(by: 2 * 86_400)
        #expect(await serverErrorCode { _ = try await refresh(first.id, with: shorter) } == "session_expired")
        #expect(try await shorter.current(bearer(first.id)) != nil)
    }

    @Test func aRotatedTokenPresentedAgainEndsTheNewestTokenTooAndIsLoggedWithoutTokens() async throws {
        let sessions = service(cacheLifetime: 60)
        let identity = try await identity()
        let first = try await sessions.issue(for: identity, kind: .bearer, providerSessionID: nil)
        clock.advance(by: 60)
        let other = try await sessions.issue(for: identity, kind: .bearer, providerSessionID: nil)
        let cookie = try await sessions.issueCookieSession(for: identity)
        let second = try await refresh(first.id, with: sessions)
        let third = try await refresh(second.id, with: sessions)
        // The newest token is cached; the reuse must end it all the same.
        #expect(try await sessions.current(bearer(third.id), cached: true) != nil)
        #expect(try await sessions.current(bearer(first.id)) == nil)
        #expect(try await sessions.current(bearer(third.id), cached: true) == nil)
        #expect(try await sessions.current(bearer(third.id)) == nil)
        // Another sign-in of the same user and its cookie session are other chains: they live.
        #expect(try await sessions.current(bearer(other.id)) != nil)
        #expect(try await sessions.live(of: identity.userID).count == 2)
        let warnings = logger.recorded.filter { $0.level == .warning }
        #expect(warnings.map(\.message) == ["bearer refresh token reused; chain ended"])
        #expect(warnings.first?.metadata == ["provider": "google"])
        for event in logger.recorded {
            let text = ([event.message] + event.metadata.keys + event.metadata.values).joined(separator: " ")
            for token in [first.id, second.id, third.id, other.id, cookie.id] { #expect(!text.contains(token)) }
        }
    }

    @Test func aRotatedTokenAtLogoutEndsItsChain() async throws {
        let sessions = service()
        let first = try await sessions.issue(for: try await identity(), kind: .bearer, providerSessionID: nil)
        let second = try await refresh(first.id, with: sessions)
        #expect(
            try await sessions.changing { try await sessions.end(.bearer(first.id), everywhere: false, changes: $0) }
                == nil)
        #expect(try await sessions.current(bearer(second.id)) == nil)
    }

    @Test func ofTwoConcurrentRefreshesWithOneTokenOnlyOneWinsAndItsTokenLives() async throws {
        let sessions = service()
        let first = try await sessions.issue(for: try await identity(), kind: .bearer, providerSessionID: "sid-1")
        let current = try await sessions.require(bearer(first.id))
        let winners = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<2 {
                group.addTask { try? await sessions.changing { try await sessions.refresh(current, changes: $0) }.id }
            }
            var ids: [String] = []
            for await id in group { if let id { ids.append(id) } }
            return ids
        }
        #expect(winners.count == 1)
        let winner = try #require(winners.first)
        #expect(try await sessions.current(bearer(winner))?.record.providerSessionID == "sid-1")
        #expect(logger.recorded.allSatisfy { $0.level != .warning })
    }

    @Test func aRefreshRacingTheEndOfItsChainEndsItsNewTokenToo() async throws {
        let hooked = HookedSessionStore(InMemorySessionStore(clock: clock))
        let sessions = service(sessions: hooked)
        let first = try await sessions.issue(for: try await identity(), kind: .bearer, providerSessionID: nil)
        let second = try await refresh(first.id, with: sessions)
        // While the next refresh stands between storing the old token's marker and its new session, the first
        // token is presented again: its sweep finds no new session to end.
        hooked.afterRotatedRecord { _ = try? await sessions.current(bearer(first.id)) }
        #expect(await serverErrorCode { _ = try await refresh(second.id, with: sessions) } == "not_signed_in")
        let user = UserID(rawValue: "u1")
        #expect(try await sessions.live(of: user).isEmpty)
    }

    @Test func rotatedRecordsAreNeverListedNorOpenedAsSessions() async throws {
        let sessions = service()
        let first = try await sessions.issue(for: try await identity(), kind: .bearer, providerSessionID: nil)
        let second = try await refresh(first.id, with: sessions)
        let listed = try await sessions.live(of: second.record.userID)
        #expect(listed.map(\.record.kind) == [.bearer])
        #expect(listed.first?.digest == Digest.sha256(Array(second.id.utf8)))
        // The marker's own store id opens nothing, and presenting it is no reuse.
        #expect(try await sessions.current(bearer(SessionService.markerID(of: first.id))) == nil)
        #expect(try await sessions.current(bearer(second.id)) != nil)
    }
}

/// An in-memory session store that runs a hook once, right after a ``SessionKind/rotated`` record is stored.
final class HookedSessionStore: SessionStore {
    let base: InMemorySessionStore
    private let hook = Mutex<(@Sendable () async -> Void)?>(nil)

    init(_ base: InMemorySessionStore) { self.base = base }

    func afterRotatedRecord(_ body: @escaping @Sendable () async -> Void) { hook.withLock { $0 = body } }

    func createSession(id: String, record: SessionRecord) async throws(StoreError) {
        try await base.createSession(id: id, record: record)
        if record.kind == .rotated,
            let body = hook.withLock({ hooked in
                defer { hooked = nil }
                return hooked
            })
        {
            await body()
        }
    }
    func session(id: String) async throws(StoreError) -> SessionRecord? { try await base.session(id: id) }
    func sessions(userID: UserID) async throws(StoreError) -> [StoredSession] { await base.sessions(userID: userID) }
    func touchSession(id: String, lastUsedAt: Date) async throws(StoreError) {
        try await base.touchSession(id: id, lastUsedAt: lastUsedAt)
    }
    func deleteSession(digest: [UInt8]) async throws(StoreError) -> Bool {
        try await base.deleteSession(digest: digest)
    }
    func deleteSessions(userID: UserID) async throws(StoreError) -> Int { await base.deleteSessions(userID: userID) }
    func deleteSessions(identity: IdentityKey, providerSessionID: String?) async throws(StoreError) -> Int {
        try await base.deleteSessions(identity: identity, providerSessionID: providerSessionID)
    }
    func checkHealth() async throws(StoreError) { await base.checkHealth() }
}
