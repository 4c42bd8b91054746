import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// Single-flight refresh of a stored X identity (X rotates refresh tokens and refuses a used one): several
/// callers on separate store handles — as separate server instances would have — on one SQLite file and on
/// one PostgreSQL database, against the sandbox's X.
@Suite("Token refresher: one refresh per rotating token", .serialized)
struct TokenRefresherTests {
    static let secret = Secret("test-secret-0123456789abcdef-0123456789")

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["AUTHFLOW_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var postgresRequired: Bool { ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1" }

    /// A store backend shared by the deployment and every extra handle.
    enum Backend: CustomTestStringConvertible {
        case sqlite(String)
        case postgres(String)

        var testDescription: String {
            switch self {
            case .sqlite: return "sqlite"
            case .postgres: return "postgres"
            }
        }

        var settings: StoreSettings {
            switch self {
            case .sqlite(let path): return StoreSettings(kind: .sqlite, path: path)
            case .postgres(let url): return StoreSettings(kind: .postgres, postgresURL: url)
            }
        }

        /// A new handle on the same database (its own connections), as another instance would open.
        func open(clock: any WallClock) throws -> SignInServer.Stores {
            try SignInServer.Stores.open(
                settings, secret: TokenRefresherTests.secret, clock: clock, random: SystemRandom())
        }
    }

    /// Signs a fresh X identity in through the server (which stores its tokens encrypted) and runs `body`.
    static func withSignedInX(
        _ backend: Backend, _ body: (TestDeployment, IdentityKey, StoredTokens) async throws -> Void
    ) async throws {
        var settings = TestDeployment.Settings()
        settings.providers = ["x"]
        settings.stores = { clock in try backend.open(clock: clock) }
        try await TestDeployment.with(settings) { app in
            // A subject of its own, so runs on one shared PostgreSQL database never meet.
            let person = SandboxIdentity(
                subject: "refresh-\(UUID().uuidString.prefix(12))", givenName: "Rae", familyName: "Fresh",
                username: "rae")
            try await app.signIn(TestBrowser(), provider: "x", as: person)
            let key = IdentityKey(provider: "x", subject: person.subject)
            let stored = try #require(try await app.stores.accounts.tokens(for: key))
            try #require(stored.refreshToken != nil && stored.accessTokenExpiresAt != nil)
            try await body(app, key, stored)
        }
    }

    static func refresher(_ app: TestDeployment, accounts: any AccountStore, maximumWait: Duration = .seconds(20))
        -> TokenRefresher
    {
        let operations = TokenOperations(
            providers: Array(app.server.providers.values), httpClient: CurlHTTPClient(), clock: app.clock)
        return TokenRefresher(
            accounts: accounts, operations: operations, clock: app.clock,
            options: .init(maximumWait: maximumWait, pollInterval: .milliseconds(20)))
    }

    /// Six callers, three on each of two handles, ask for an expired X token at once.
    static func concurrentRefreshReachesXOnce(_ backend: Backend) async throws {
        try await withSignedInX(backend) { app, key, signedIn in
            let first = try backend.open(clock: app.clock)
            let second = try backend.open(clock: app.clock)
            let refreshers = [
                // The server's own refresher, as the embedding backend gets it, and one on another handle.
                app.server.tokenRefresher(options: .init(maximumWait: .seconds(20), pollInterval: .milliseconds(20))),
                refresher(app, accounts: first.accounts), refresher(app, accounts: second.accounts),
            ]
            let before = app.sandbox.requestCounts(for: .x).refreshGrants
            app.clock.advance(by: 3 * 3600)  // X access tokens last 2 h: the stored one has expired.
            let results = try await withThrowingTaskGroup(of: StoredTokens.self) { group in
                for index in 0..<6 {
                    let refresher = refreshers[index % refreshers.count]
                    group.addTask { try await refresher.accessToken(for: key) }
                }
                var results: [StoredTokens] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(app.sandbox.requestCounts(for: .x).refreshGrants - before == 1)
            let refreshed = try #require(results.first)
            #expect(results.allSatisfy { $0.accessToken == refreshed.accessToken })
            #expect(refreshed.accessToken != signedIn.accessToken)
            #expect(refreshed.refreshToken != nil && refreshed.refreshToken != signedIn.refreshToken)
            // What every instance now reads is the rotated refresh token ...
            for handle in [app.stores, first, second] {
                #expect(try await handle.accounts.tokens(for: key)?.refreshToken == refreshed.refreshToken)
            }
            // ... and it is the live one: a forced refresh with it succeeds (X refuses a used one).
            let again = try await refreshers[1].accessToken(for: key, forceRefresh: true)
            #expect(app.sandbox.requestCounts(for: .x).refreshGrants - before == 2)
            #expect(again.refreshToken != refreshed.refreshToken && again.accessToken != refreshed.accessToken)
        }
    }

    @Test func concurrentRefreshesOnOneSQLiteFileReachXOnceAndKeepTheRotatedToken() async throws {
        let file = TemporarySQLiteFile("refresh")
        defer { file.remove() }
        let path = file.path
        try await Self.concurrentRefreshReachesXOnce(.sqlite(path))
    }

    @Test(.enabled(if: TokenRefresherTests.postgresURL != nil || TokenRefresherTests.postgresRequired))
    func concurrentRefreshesOnOnePostgreSQLDatabaseReachXOnceAndKeepTheRotatedToken() async throws {
        let url = try #require(Self.postgresURL, "AUTHFLOW_TEST_POSTGRES_URL is not set (scripts/test.sh sets it)")
        try await Self.concurrentRefreshReachesXOnce(.postgres(url))
    }

    @Test func aFreshAccessTokenIsReturnedWithoutAskingX() async throws {
        let file = TemporarySQLiteFile("refresh")
        defer { file.remove() }
        let path = file.path
        try await Self.withSignedInX(.sqlite(path)) { app, key, signedIn in
            let before = app.sandbox.requestCounts(for: .x).refreshGrants
            let tokens = try await Self.refresher(app, accounts: app.stores.accounts).accessToken(for: key)
            #expect(tokens == signedIn)
            #expect(app.sandbox.requestCounts(for: .x).refreshGrants == before)
        }
    }

    @Test func aWaiterGivesUpWithATypedErrorWhileAHolderNeverFinishesThenTakesOverItsExpiredLease() async throws {
        let file = TemporarySQLiteFile("refresh")
        defer { file.remove() }
        let path = file.path
        try await Self.withSignedInX(.sqlite(path)) { app, key, signedIn in
            let other = try Backend.sqlite(path).open(clock: app.clock)
            app.clock.advance(by: 3 * 3600)
            // Another instance took the lease and died before writing anything.
            let lease = try await other.accounts.beginTokenRefresh(
                for: key, holder: "crashed-instance", leaseDuration: 600)
            #expect(lease == .acquired(signedIn))
            let before = app.sandbox.requestCounts(for: .x).refreshGrants
            let waiter = Self.refresher(app, accounts: app.stores.accounts, maximumWait: .milliseconds(200))
            do throws(TokenRefreshError) {
                _ = try await waiter.accessToken(for: key)
                Issue.record("expected refresh_wait_timed_out")
            } catch {
                #expect(error.code == .refreshWaitTimedOut)
                #expect(error.provider == "x")
            }
            #expect(app.sandbox.requestCounts(for: .x).refreshGrants == before)
            #expect(try await app.stores.accounts.tokens(for: key) == signedIn)

            // Once the dead holder's lease has run out, the next caller refreshes.
            app.clock.advance(by: 601)
            let refreshed = try await waiter.accessToken(for: key)
            #expect(app.sandbox.requestCounts(for: .x).refreshGrants == before + 1)
            #expect(refreshed.refreshToken != signedIn.refreshToken)
            #expect(try await other.accounts.tokens(for: key) == refreshed)
        }
    }

    @Test func aRefusedRefreshReleasesTheLeaseAndKeepsTheStoredTokens() async throws {
        let file = TemporarySQLiteFile("refresh")
        defer { file.remove() }
        let path = file.path
        try await Self.withSignedInX(.sqlite(path)) { app, key, signedIn in
            // The grant is revoked at X: the stored refresh token no longer works.
            let operations = TokenOperations(
                providers: Array(app.server.providers.values), httpClient: CurlHTTPClient(), clock: app.clock)
            try await operations.revoke(provider: "x", token: try #require(signedIn.refreshToken))
            let refresher = Self.refresher(app, accounts: app.stores.accounts)
            do throws(TokenRefreshError) {
                _ = try await refresher.accessToken(for: key, forceRefresh: true)
                Issue.record("expected refresh_failed")
            } catch {
                #expect(error.code == .refreshFailed)
                #expect(error.signInError?.providerError == "invalid_grant")
            }
            #expect(try await app.stores.accounts.tokens(for: key) == signedIn)
            // The lease was released: the next caller may try at once.
            #expect(
                try await app.stores.accounts.beginTokenRefresh(for: key, holder: "next", leaseDuration: 30)
                    == .acquired(signedIn))
        }
    }

    @Test func anIdentityWithoutStoredTokensIsATypedError() async throws {
        let refresher = TokenRefresher(
            accounts: InMemoryAccountStore(clock: SystemClock()),
            operations: TokenOperations(providers: [], httpClient: CurlHTTPClient()))
        do throws(TokenRefreshError) {
            _ = try await refresher.accessToken(for: IdentityKey(provider: "x", subject: "nobody"))
            Issue.record("expected no_tokens")
        } catch {
            #expect(error.code == .noTokens)
        }
    }
}
