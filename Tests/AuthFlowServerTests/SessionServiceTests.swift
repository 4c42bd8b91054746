import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowServer

/// The session service on its own: no router, real in-memory stores, a manual clock.
@Suite("Session service: issuance, validation, idle timeout, refresh and ends of sessions")
struct SessionServiceTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
    let stores: SignInServer.Stores
    let key = IdentityKey(provider: "google", subject: "alice-1")

    init() {
        stores = .memory(clock: clock)
    }

    func service(idleTimeout: Double? = nil, cacheLifetime: Double = 0) -> SessionService {
        var options = SignInServer.Options(
            publicURL: "http://localhost:8080", secret: Secret(String(repeating: "s", count: 32)), sessionTTL: 3600)
        options.nativeSessionTTL = 86_400
        options.sessionIdleTimeout = idleTimeout
        options.sessionCacheLifetime = cacheLifetime
        return SessionService(
            options: options, stores: stores, cookies: CookiePolicy(publicURL: options.publicURL), clock: clock,
            random: BufferedRandom(source: SystemRandom()), logger: SilentLogger())
    }

    /// The identity of a new user `id`.
    func identity(_ id: String = "u1", key: IdentityKey? = nil) async throws -> LinkedIdentity {
        let key = key ?? self.key
        let account = try await stores.accounts.createUser(UserID(rawValue: id), identity: key, profile: .init())
        return try #require(account.identities.first)
    }

    func request(cookie: String? = nil, bearer: String? = nil, cookies extra: [String] = []) -> HTTPServerRequest {
        var headers: [(String, String)] = extra.map { ("Cookie", "authflow_session=\($0)") }
        if let cookie { headers.append(("Cookie", "authflow_session=\(cookie)")) }
        if let bearer { headers.append(("Authorization", "Bearer \(bearer)")) }
        return HTTPServerRequest(
            method: "GET", path: "/auth/session", headers: HTTPHeaders(headers), remoteAddress: "127.0.0.1")
    }

    @Test func aCookieOpensOnlyACookieSessionAndABearerOnlyABearerSession() async throws {
        let sessions = service()
        let identity = try await identity()
        let cookie = try await sessions.issueCookieSession(for: identity)
        #expect(cookie.cookie.hasPrefix("authflow_session=\(cookie.id);"))
        #expect(try await sessions.current(request(cookie: cookie.id))?.record.userID.rawValue == "u1")
        #expect(try await sessions.current(request(bearer: cookie.id)) == nil)
        let bearer = try await sessions.issue(for: identity, kind: .bearer, providerSessionID: nil)
        #expect(bearer.record.expiresAt == clock.now().addingTimeInterval(86_400))
        #expect(try await sessions.current(request(bearer: bearer.id))?.record.kind == .bearer)
        #expect(try await sessions.current(request(cookie: bearer.id)) == nil)
        #expect(await serverErrorCode { _ = try await sessions.require(request()) } == "not_signed_in")
    }

    @Test func bothCredentialsOrATwiceSentCookieAreRefused() async throws {
        let sessions = service()
        #expect(
            await serverErrorCode { _ = try sessions.credential(request(cookie: "a", bearer: "b")) }
                == "ambiguous_credentials")
        #expect(
            await serverErrorCode { _ = try sessions.credential(request(cookie: "a", cookies: ["b"])) }
                == "duplicate_cookie")
        #expect(try sessions.credential(request(bearer: "b")) == .bearer("b"))
    }

    @Test func anExpiredSessionOrADisabledIdentityOpensNothing() async throws {
        let sessions = service()
        let identity = try await identity()
        let first = try await sessions.issueCookieSession(for: identity)
        clock.advance(by: 3601)
        #expect(try await sessions.current(request(cookie: first.id)) == nil)
        let second = try await sessions.issueCookieSession(for: identity)
        _ = try await stores.accounts.setIdentityDisabled(true, for: key)
        #expect(try await sessions.current(request(cookie: second.id)) == nil)
    }

    @Test func aUseIsWrittenOncePerRenewalIntervalAndAnUnusedSessionEnds() async throws {
        let sessions = service(idleTimeout: 600)
        let identity = try await identity()
        let session = try await sessions.issueCookieSession(for: identity)
        clock.advance(by: 30)
        let fresh = try #require(try await sessions.current(request(cookie: session.id)))
        #expect(sessions.idleState(fresh.record, now: clock.now()) == .fresh)
        clock.advance(by: 40)
        let due = try #require(try await sessions.current(request(cookie: session.id)))
        #expect(due.record.lastUsedAt == clock.now())
        clock.advance(by: 599)
        #expect(try await sessions.current(request(cookie: session.id)) != nil)
        clock.advance(by: 600)
        #expect(try await sessions.current(request(cookie: session.id)) == nil)
    }

    @Test func aRefreshEndsTheOldTokenSoOnlyOneRefreshWins() async throws {
        let sessions = service()
        let identity = try await identity()
        let bearer = try await sessions.issue(for: identity, kind: .bearer, providerSessionID: "sid-1", groups: ["ops"])
        let current = try await sessions.require(request(bearer: bearer.id))
        let renewed = try await sessions.changing { try await sessions.refresh(current, changes: $0) }
        #expect(renewed.id != bearer.id)
        #expect(renewed.record.providerSessionID == "sid-1" && renewed.record.groups == ["ops"])
        #expect(try await sessions.current(request(bearer: bearer.id)) == nil)
        #expect(
            await serverErrorCode {
                _ = try await sessions.changing { try await sessions.refresh(current, changes: $0) }
            } == "not_signed_in")
    }

    @Test func endingEverywhereEndsEverySessionOfTheUserOnly() async throws {
        let sessions = service()
        let alice = try await identity()
        let bob = try await identity("u2", key: IdentityKey(provider: "google", subject: "bob-1"))
        let phone = try await sessions.issue(for: alice, kind: .bearer, providerSessionID: nil)
        let laptop = try await sessions.issueCookieSession(for: alice)
        let other = try await sessions.issueCookieSession(for: bob)
        // A bearer token sent as a cookie ends nothing.
        #expect(
            try await sessions.changing { try await sessions.end(.cookie(phone.id), everywhere: true, changes: $0) }
                == nil)
        #expect(try await sessions.live(of: alice.userID).count == 2)
        let ended = try await sessions.changing {
            try await sessions.end(.cookie(laptop.id), everywhere: true, changes: $0)
        }
        #expect(ended?.userID == alice.userID)
        #expect(try await sessions.live(of: alice.userID).isEmpty)
        #expect(try await sessions.current(request(cookie: other.id)) != nil)
    }

    @Test func aListedSessionIsRevokedByItsPublicIDForItsOwnUserOnly() async throws {
        let sessions = service()
        let alice = try await identity()
        let bob = try await identity("u2", key: IdentityKey(provider: "google", subject: "bob-1"))
        let session = try await sessions.issueCookieSession(for: alice)
        let listed = try #require(try await sessions.live(of: alice.userID).first)
        let id = sessions.publicID(digest: listed.digest)
        #expect(!id.contains(session.id) && id != Base64URL.encode(listed.digest))
        #expect(
            await serverErrorCode {
                _ = try await sessions.changing { try await sessions.revoke(publicID: id, of: bob.userID, changes: $0) }
            } == "session_not_found"
        )
        #expect(try await sessions.current(request(cookie: session.id)) != nil)
        _ = try await sessions.changing { try await sessions.revoke(publicID: id, of: alice.userID, changes: $0) }
        #expect(try await sessions.current(request(cookie: session.id)) == nil)
    }

    @Test func anEndInsideAChangingRouteIsSeenThroughTheCacheAtOnce() async throws {
        let sessions = service(cacheLifetime: 60)
        let identity = try await identity()
        let session = try await sessions.issueCookieSession(for: identity)
        #expect(try await sessions.current(request(cookie: session.id), cached: true) != nil)
        #expect(sessions.cache.session(id: session.id, now: clock.now()) != nil)
        try await sessions.changing { changes async throws(ServerError) in
            _ = try await sessions.end(.cookie(session.id), everywhere: false, changes: changes)
        }
        #expect(try await sessions.current(request(cookie: session.id), cached: true) == nil)
    }
}
