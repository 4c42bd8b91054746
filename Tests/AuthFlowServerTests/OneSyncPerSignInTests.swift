import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowSQLite
@testable import AuthFlowServer

/// A sign-in on SQLite costs one durable commit: the account write ends the browser's previous session in its own
/// transaction, so the sign-in syncs the write-ahead log once (the new session and the spent state are written
/// unsynced and reach the disk with that sync or the next).
@Suite("One sync per sign-in on SQLite")
struct OneSyncPerSignInTests {
    static func logSyncs(_ database: SQLiteDatabase) async throws -> Int {
        try await database.perform("test") { connection throws(StoreError) in connection.logSyncs }
    }

    @Test func aSecondSignInInTheSameBrowserSyncsOnceAndEndsTheFirstSession() async throws {
        let file = TemporarySQLiteFile("one-sync")
        defer { file.remove() }
        let database = try SQLiteDatabase(path: file.path)
        var settings = TestDeployment.Settings()
        settings.stores = { clock in
            let keyring = try SecretKeyring(current: TemporarySQLiteFile.secret.value)
            let sqlite = SQLiteStores(
                database: database, cipher: try keyring.cipher(random: SystemRandom()), clock: clock)
            return SignInServer.Stores(flows: sqlite.flows, accounts: sqlite.accounts, sessions: sqlite.sessions)
        }
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let first = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let before = try await Self.logSyncs(database)

            try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(try await Self.logSyncs(database) == before + 1)
            let second = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            #expect(second != first)
            #expect(try await app.stores.sessions.session(id: first) == nil)
            #expect(try await app.stores.sessions.session(id: second) != nil)
            #expect(try await app.session(browser).status == 200)
        }
    }
}
