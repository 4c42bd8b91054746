import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import Foundation
import Synchronization
import Testing

@testable import AuthFlowServer

@Suite("Session cache: /auth/check answers from memory, revocation still takes effect")
struct SessionCacheTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func session(expiresIn seconds: Double = 3600) -> CurrentSession {
        let record = SessionRecord(
            userID: UserID(rawValue: "u1"), provider: "google", subject: "s1", createdAt: start,
            expiresAt: start.addingTimeInterval(seconds))
        let identity = LinkedIdentity(
            userID: UserID(rawValue: "u1"), provider: "google", subject: "s1", email: nil, emailVerified: false,
            isPrivateEmail: false, emailDisabled: false, name: nil, isDisabled: false, createdAt: start,
            updatedAt: start)
        return CurrentSession(id: "id-1", record: record, identity: identity)
    }

    @Test func answersWithinTheLifetimeOnly() {
        let cache = SessionCache(lifetime: 1)
        cache.store(Self.session(), id: "id-1", epoch: cache.epoch(), now: Self.start)
        #expect(cache.session(id: "id-1", now: Self.start.addingTimeInterval(0.5))?.record.userID.rawValue == "u1")
        #expect(cache.session(id: "id-1", now: Self.start.addingTimeInterval(1)) == nil)
        #expect(cache.session(id: "other", now: Self.start) == nil)
    }

    @Test func neverAnswersWithAnExpiredSession() {
        let cache = SessionCache(lifetime: 60)
        cache.store(Self.session(expiresIn: 10), id: "id-1", epoch: cache.epoch(), now: Self.start)
        #expect(cache.session(id: "id-1", now: Self.start.addingTimeInterval(9)) != nil)
        #expect(cache.session(id: "id-1", now: Self.start.addingTimeInterval(10)) == nil)
    }

    @Test func aClockThatWentBackRefusesTheEntry() {
        let cache = SessionCache(lifetime: 60)
        cache.store(Self.session(), id: "id-1", epoch: cache.epoch(), now: Self.start)
        #expect(cache.session(id: "id-1", now: Self.start.addingTimeInterval(-1)) == nil)
    }

    @Test func invalidationForgetsEntriesAndRefusesReadsThatBeganBefore() {
        let cache = SessionCache(lifetime: 60)
        cache.store(Self.session(), id: "id-1", epoch: cache.epoch(), now: Self.start)
        let epochBeforeRead = cache.epoch()
        cache.invalidateAll()
        #expect(cache.session(id: "id-1", now: Self.start) == nil)
        // A read that started before the change must not put its (possibly revoked) result back.
        cache.store(Self.session(), id: "id-1", epoch: epochBeforeRead, now: Self.start)
        #expect(cache.session(id: "id-1", now: Self.start) == nil)
    }

    @Test func lifetimeZeroTurnsTheCacheOff() {
        let cache = SessionCache(lifetime: 0)
        cache.store(Self.session(), id: "id-1", epoch: cache.epoch(), now: Self.start)
        #expect(cache.session(id: "id-1", now: Self.start) == nil)
    }

    @Test func holdsAtMostItsCapacity() {
        let cache = SessionCache(lifetime: 60, capacity: 2)
        for id in ["a", "b", "c"] {
            cache.store(Self.session(), id: id, epoch: cache.epoch(), now: Self.start)
        }
        let kept = ["a", "b", "c"].filter { cache.session(id: $0, now: Self.start) != nil }
        #expect(kept == ["c"])
    }

    static func session(id: String, user: String, subject: String) -> CurrentSession {
        let record = SessionRecord(
            userID: UserID(rawValue: user), provider: "google", subject: subject, createdAt: start,
            expiresAt: start.addingTimeInterval(3600))
        let identity = LinkedIdentity(
            userID: UserID(rawValue: user), provider: "google", subject: subject, email: nil, emailVerified: false,
            isPrivateEmail: false, emailDisabled: false, name: nil, isDisabled: false, createdAt: start,
            updatedAt: start)
        return CurrentSession(id: id, record: record, identity: identity)
    }

    @Test func invalidationForgetsOnlyWhatChanged() {
        let cache = SessionCache(lifetime: 60)
        func fill() {
            for (id, user, subject) in [("a1", "alice", "s-a"), ("a2", "alice", "s-a2"), ("b1", "bob", "s-b")] {
                cache.store(
                    Self.session(id: id, user: user, subject: subject), id: id, epoch: cache.epoch(), now: Self.start)
            }
        }
        func cached() -> [String] { ["a1", "a2", "b1"].filter { cache.session(id: $0, now: Self.start) != nil } }
        fill()
        cache.invalidate(SessionChanges())
        #expect(cached() == ["a1", "a2", "b1"])
        cache.invalidate(SessionChanges(users: [UserID(rawValue: "alice")]))
        #expect(cached() == ["b1"])
        fill()
        // A session goes with every cached session of its user.
        cache.invalidate(SessionChanges(sessions: ["a2"]))
        #expect(cached() == ["b1"])
        fill()
        cache.invalidate(SessionChanges(identities: [IdentityKey(provider: "google", subject: "s-b")]))
        #expect(cached() == ["a1", "a2"])
        // Any change refuses reads that began before it, whoever they were for.
        let epochBeforeRead = cache.epoch()
        cache.invalidate(SessionChanges(users: [UserID(rawValue: "carol")]))
        cache.store(
            Self.session(id: "b1", user: "bob", subject: "s-b"), id: "b1", epoch: epochBeforeRead, now: Self.start)
        #expect(cache.session(id: "b1", now: Self.start) == nil)
    }

    /// A store read that waits until released, counting how often it was asked.
    final class GatedRead: Sendable {
        private let gate: AsyncStream<Void>
        private let open: AsyncStream<Void>.Continuation
        private let counter = Mutex(0)

        init() { (gate, open) = AsyncStream.makeStream(of: Void.self) }

        var reads: Int { counter.withLock { $0 } }

        func read(_ answer: CurrentSession?) async -> CurrentSession? {
            counter.withLock { $0 += 1 }
            for await _ in gate { break }
            return answer
        }

        /// Lets every read waiting now and later finish.
        func release() { open.finish() }
    }

    /// Waits (without a time limit) until `count` requests wait for the read in flight for `id`.
    static func waitUntil(_ cache: SessionCache, has count: Int, waitingFor id: String) async {
        while cache.waiting(for: id) != count { await Task.yield() }
    }

    @Test func concurrentMissesForOneSessionShareOneStoreRead() async {
        let cache = SessionCache(lifetime: 60)
        let store = GatedRead()
        let now: @Sendable () -> Date = { Self.start }
        let leader = Task { await cache.session(id: "id-1", now: now) { await store.read(Self.session()) } }
        await Self.waitUntil(cache, has: 0, waitingFor: "id-1")
        let followers = (0..<8).map { _ in
            Task { await cache.session(id: "id-1", now: now) { await store.read(Self.session()) } }
        }
        await Self.waitUntil(cache, has: 8, waitingFor: "id-1")
        store.release()
        #expect(await leader.value?.record.userID.rawValue == "u1")
        for follower in followers { #expect(await follower.value?.record.userID.rawValue == "u1") }
        #expect(store.reads == 1)
        // Remembered: the next request reads nothing.
        #expect(await cache.session(id: "id-1", now: now) { await store.read(nil) } != nil)
        #expect(store.reads == 1)
        #expect(cache.waiting(for: "id-1") == nil)
    }

    @Test func aChangeDuringASharedReadSendsEveryWaiterToTheStores() async {
        let cache = SessionCache(lifetime: 60)
        let store = GatedRead()
        let now: @Sendable () -> Date = { Self.start }
        let leader = Task { await cache.session(id: "id-1", now: now) { await store.read(Self.session()) } }
        await Self.waitUntil(cache, has: 0, waitingFor: "id-1")
        let followers = (0..<3).map { _ in
            Task { await cache.session(id: "id-1", now: now) { await store.read(nil) } }
        }
        await Self.waitUntil(cache, has: 3, waitingFor: "id-1")
        // A logout elsewhere finishes while the read runs: what it read may be revoked.
        cache.invalidate(SessionChanges(sessions: ["id-1"]))
        store.release()
        #expect(await leader.value != nil)  // its own request began before the change: either answer holds
        for follower in followers { #expect(await follower.value == nil) }  // each read the stores again
        #expect(store.reads == 4)
        // And nothing read before the change was remembered.
        #expect(cache.session(id: "id-1", now: Self.start) == nil)
    }

    @Test func aRequestArrivingAfterAChangeNeverJoinsAReadBegunBeforeIt() async {
        let cache = SessionCache(lifetime: 60)
        let before = GatedRead()
        let after = GatedRead()
        let now: @Sendable () -> Date = { Self.start }
        let early = Task { await cache.session(id: "id-1", now: now) { await before.read(Self.session()) } }
        await Self.waitUntil(cache, has: 0, waitingFor: "id-1")
        let waiter = Task { await cache.session(id: "id-1", now: now) { await before.read(Self.session()) } }
        await Self.waitUntil(cache, has: 1, waitingFor: "id-1")
        cache.invalidate(SessionChanges(users: [UserID(rawValue: "u1")]))
        // Arrives after the change: reads the stores itself (which now say the session is gone).
        after.release()
        #expect(await cache.session(id: "id-1", now: now) { await after.read(nil) } == nil)
        #expect(after.reads == 1)
        // The earlier flight's waiter was sent to the stores too, not left waiting.
        before.release()
        _ = await early.value
        _ = await waiter.value
        #expect(before.reads == 2)
        #expect(cache.waiting(for: "id-1") == nil)
    }

    @Test func aFailedSharedReadSendsEveryWaiterToTheStores() async {
        struct Outage: Error {}
        let cache = SessionCache(lifetime: 60)
        let store = GatedRead()
        let now: @Sendable () -> Date = { Self.start }
        let leader = Task { () async -> Bool in
            do throws(Outage) {
                _ = try await cache.session(id: "id-1", now: now) { () async throws(Outage) -> CurrentSession? in
                    _ = await store.read(nil)
                    throw Outage()
                }
                return false
            } catch {
                return true
            }
        }
        await Self.waitUntil(cache, has: 0, waitingFor: "id-1")
        let follower = Task { await cache.session(id: "id-1", now: now) { await store.read(Self.session()) } }
        await Self.waitUntil(cache, has: 1, waitingFor: "id-1")
        store.release()
        #expect(await leader.value)
        #expect(await follower.value != nil)
        #expect(store.reads == 2)
    }

    @Test func aCachedBearerSessionNeverAnswersASessionCookieAtOnce() async throws {
        var settings = TestDeployment.Settings()
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings) { app in
            let cache = app.server.context.sessions.cache
            let record = SessionRecord(
                userID: UserID(rawValue: "u1"), provider: "google", subject: "s1", createdAt: Date(),
                expiresAt: Date().addingTimeInterval(3600), kind: .bearer)
            let bearer = CurrentSession(id: "bearer-token", record: record, identity: Self.session().identity)
            cache.store(bearer, id: "bearer-token", epoch: cache.epoch(), now: Date())
            #expect(cache.session(id: "bearer-token", now: Date()) != nil)
            var headers = HTTPHeaders()
            headers["Cookie"] = "\(app.sessionCookie)=bearer-token"
            let request = HTTPServerRequest(
                method: "GET", path: "/auth/check", headers: headers, remoteAddress: "127.0.0.1")
            #expect(app.server.handleAtOnce(request) == nil)
            #expect(await app.server.handle(request).status == 401)
        }
    }

    /// Requests that change nothing keep the cache, and so does another user's sign-in; a logout forgets that
    /// user's sessions only, and its revoked session is never answered from the cache.
    @Test func onlyTheRoutesThatChangeSessionsForgetAndOnlyWhatTheyChanged() async throws {
        var settings = TestDeployment.Settings()
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings) { app in
            let alice = TestBrowser()
            try await app.signIn(alice, provider: "google", as: People.alice)
            let aliceID = try #require(alice.cookie(app.sessionCookie, for: app.appURL))
            let aliceAgain = TestBrowser()
            try await app.signIn(aliceAgain, provider: "google", as: People.alice)
            func check(_ id: String) -> HTTPServerRequest {
                var headers = HTTPHeaders()
                headers["Cookie"] = "\(app.sessionCookie)=\(id)"
                return HTTPServerRequest(
                    method: "GET", path: "/auth/check", headers: headers, remoteAddress: "127.0.0.1")
            }
            let aliceAgainID = try #require(aliceAgain.cookie(app.sessionCookie, for: app.appURL))
            #expect(await app.server.handle(check(aliceID)).status == 202)
            #expect(await app.server.handle(check(aliceAgainID)).status == 202)
            #expect(app.server.handleAtOnce(check(aliceID)) != nil)
            // Anonymous requests outside the read-only routes: nothing forgotten.
            let anonymous = TestBrowser()
            #expect(try await anonymous.get(app.appURL + "/favicon.ico").status == 404)
            #expect(try await anonymous.post(app.appURL + "/favicon.ico", from: app.appURL).status == 404)
            #expect(try await anonymous.post(app.appURL + "/auth/logout", from: app.appURL).status == 204)
            #expect(app.server.handleAtOnce(check(aliceID)) != nil)
            // Another user's sign-in and logout: nothing of Alice's forgotten.
            let bob = TestBrowser()
            try await app.signIn(bob, provider: "google", as: People.bob)
            #expect(try await bob.post(app.appURL + "/auth/logout", from: app.appURL).status == 204)
            #expect(app.server.handleAtOnce(check(aliceID)) != nil)
            #expect(app.server.handleAtOnce(check(aliceAgainID)) != nil)
            // Alice's logout: both her cached sessions are forgotten, and the revoked one is refused.
            #expect(try await alice.post(app.appURL + "/auth/logout", from: app.appURL).status == 204)
            #expect(app.server.handleAtOnce(check(aliceID)) == nil)
            #expect(app.server.handleAtOnce(check(aliceAgainID)) == nil)
            #expect(await app.server.handle(check(aliceID)).status == 401)
            let replay = TestBrowser()
            replay.setCookie(app.sessionCookie, aliceID, for: app.appURL)
            #expect(try await replay.get(app.appURL + "/auth/check").status == 401)
            #expect(await app.server.handle(check(aliceAgainID)).status == 202)
        }
    }

    @Test func logoutTakesEffectOnTheNextCheckEvenWhenCached() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let replay = TestBrowser()
            replay.setCookie(app.sessionCookie, cookie, for: app.appURL)
            #expect(try await replay.get(app.appURL + "/auth/check").status == 202)
            #expect(try await app.session(replay).status == 200)
            #expect(try await browser.post(app.appURL + "/auth/logout", from: app.appURL).status == 204)
            #expect(try await replay.get(app.appURL + "/auth/check").status == 401)
            #expect(try await app.session(replay).status == 401)
        }
    }

    @Test func accountDeletionTakesEffectOnTheNextCheckEvenWhenCached() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let replay = TestBrowser()
            replay.setCookie(app.sessionCookie, cookie, for: app.appURL)
            #expect(try await replay.get(app.appURL + "/auth/check").status == 202)
            #expect(try await browser.post(app.appURL + "/auth/account/delete", from: app.appURL).status < 400)
            #expect(try await replay.get(app.appURL + "/auth/check").status == 401)
        }
    }

    @Test func aRevocationMadeOutsideThisServerIsSeenWithinTheLifetime() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let id = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            #expect(try await browser.get(app.appURL + "/auth/check").status == 202)
            // Another instance sharing the store (here: the store itself) ends the session.
            #expect(try await app.stores.sessions.deleteSession(id: id))
            app.clock.advance(by: app.server.options.sessionCacheLifetime + 0.5)
            #expect(try await browser.get(app.appURL + "/auth/check").status == 401)
        }
    }

    /// The answer of `handleAtOnce` (no task, on the polling thread) is the one `handle` gives, and it answers
    /// only a cached session's check; everything else is left to `handle`.
    @Test func answersACachedCheckAtOnceExactlyAsHandleWould() async throws {
        // Cached checks outlive any pause of a busy test run between caching and `handleAtOnce`.
        var settings = TestDeployment.Settings()
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let id = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            func request(_ method: String = "GET", _ path: String = "/auth/check", cookie: String? = nil)
                -> HTTPServerRequest
            {
                var headers = HTTPHeaders()
                headers["Cookie"] = cookie ?? "\(app.sessionCookie)=\(id)"
                return HTTPServerRequest(method: method, path: path, headers: headers, remoteAddress: "127.0.0.1")
            }
            func comparable(_ response: HTTPServerResponse) -> [String] {
                response.headers.filter { $0.name != "X-Request-Id" }.map { "\($0.name): \($0.value)" }
            }
            // Not cached yet: left to `handle`, which looks the session up and caches it.
            #expect(app.server.handleAtOnce(request()) == nil)
            let handled = await app.server.handle(request())
            #expect(handled.status == 202)
            let atOnce = try #require(app.server.handleAtOnce(request()))
            #expect(atOnce.status == 202)
            #expect(comparable(atOnce) == comparable(handled))
            #expect(atOnce.headers["X-Auth-User"] != nil)
            #expect(atOnce.headers["X-Request-Id"] != handled.headers["X-Request-Id"])
            #expect(app.server.handleAtOnce(request("HEAD"))?.status == 202)
            // Other methods, paths and cookies go to `handle`.
            #expect(app.server.handleAtOnce(request("POST")) == nil)
            #expect(app.server.handleAtOnce(request("GET", "/auth/session")) == nil)
            #expect(app.server.handleAtOnce(request(cookie: "other=1")) == nil)
            #expect(app.server.handleAtOnce(request(cookie: "\(app.sessionCookie)=unknown")) == nil)
            let twice = request(cookie: "\(app.sessionCookie)=\(id); \(app.sessionCookie)=\(id)")
            #expect(app.server.handleAtOnce(twice) == nil)
            #expect(await app.server.handle(twice).status == 400)
            // A logout empties the cache: the next check is `handle`'s again, and refused.
            #expect(try await browser.post(app.appURL + "/auth/logout", from: app.appURL).status == 204)
            #expect(app.server.handleAtOnce(request()) == nil)
            #expect(await app.server.handle(request()).status == 401)
        }
    }
}
