import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowSQLite
@testable import AuthFlowServer

@Suite("The server on its stores: SQLite at rest, Apple's name never lost")
struct StoreIntegrationTests {
    @Test func healthNamesTheStoreThatDoesNotAnswer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-health-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_000_000))
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("flows.sqlite").path)
        let stores = SignInServer.Stores(
            flows: SQLiteFlowStore(database: database, clock: clock), accounts: InMemoryAccountStore(clock: clock),
            sessions: InMemorySessionStore(clock: clock))
        let server = SignInServer(
            options: .init(publicURL: "http://localhost:8080", secret: Secret(String(repeating: "s", count: 40))),
            providers: [], stores: stores, httpClient: CurlHTTPClient(), clock: clock)
        let healthy = await server.handle(
            HTTPServerRequest(method: "GET", path: "/healthz", remoteAddress: "127.0.0.1"))
        #expect(healthy.status == 200)
        // The flow store's table is gone: the store no longer answers, and /healthz says which one.
        try await database.perform("test") { connection throws(StoreError) in
            try connection.execute("DROP TABLE spent_states", operation: "test")
        }
        let down = await server.handle(HTTPServerRequest(method: "GET", path: "/healthz", remoteAddress: "127.0.0.1"))
        #expect(down.status == 503)
        let body = try JSONValue.parse(down.body)
        #expect(body["status"]?.stringValue == "unavailable")
        #expect(body["store"]?.stringValue == "flows")
        #expect(body["backend"]?.stringValue == "sqlite")
        #expect(body["error"]?.stringValue == "backend_failure")
    }

    /// The SQL account and session stores read their own tables: a file that answers but lost a table is unhealthy,
    /// and `/healthz` names the store.
    @Test(arguments: [("sessions", "sessions"), ("users", "accounts")])
    func healthNamesTheSQLStoreWhoseTableIsGone(table: String, store: String) async throws {
        let file = TemporarySQLiteFile("health")
        defer { file.remove() }
        let path = file.path
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_000_000))
        let stores = try file.stores(clock: clock)
        let server = SignInServer(
            options: .init(publicURL: "http://localhost:8080", secret: Secret(String(repeating: "s", count: 40))),
            providers: [], stores: stores, httpClient: CurlHTTPClient(), clock: clock)
        #expect(
            await server.handle(HTTPServerRequest(method: "GET", path: "/healthz", remoteAddress: "127.0.0.1")).status
                == 200)
        let database = try SQLiteDatabase(path: path)
        try await database.perform("test") { connection throws(StoreError) in
            try connection.execute("DROP TABLE \(table)", operation: "test")
        }
        let down = await server.handle(HTTPServerRequest(method: "GET", path: "/healthz", remoteAddress: "127.0.0.1"))
        #expect(down.status == 503)
        #expect(try JSONValue.parse(down.body)["store"]?.stringValue == store)
        #expect(try JSONValue.parse(down.body)["backend"]?.stringValue == "sqlite")
    }

    @Test func refreshTokensAreStoredEncryptedInSQLite() async throws {
        let file = TemporarySQLiteFile("server")
        defer { file.remove() }
        let path = file.path
        var settings = TestDeployment.Settings()
        settings.stores = { clock in try file.stores(clock: clock) }
        try await TestDeployment.with(settings) { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "x", as: People.carol)
            #expect(try await app.session(browser).status == 200)
            let tokens = try #require(
                try await app.stores.accounts.tokens(for: IdentityKey(provider: "x", subject: "carol-3")))
            let refresh = try #require(tokens.refreshToken)
            let access = try #require(tokens.accessToken)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            if let wal = try? Data(contentsOf: URL(fileURLWithPath: path + "-wal")) { bytes += [UInt8](wal) }
            #expect(!Self.contains(bytes, Array(refresh.utf8)))
            #expect(!Self.contains(bytes, Array(access.utf8)))
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            #expect(!Self.contains(bytes, Array(cookie.utf8)))  // only the session id's digest is stored
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    @Test func appleNameSurvivesAFailedTokenExchange() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "apple", as: People.bob)
            guard case .post(_, let fields) = answer else {
                Issue.record("expected Apple to answer with a form POST")
                return
            }
            #expect(fields.contains { $0.0 == "user" })
            // The token endpoint refuses the exchange (the client is gone for a moment).
            let client = try #require(app.sandbox.client(.apple, clientID: "com.example.web"))
            app.sandbox.unregister(.apple, clientID: "com.example.web")
            let failed = try await app.deliver(answer, in: browser)
            #expect(failed.status == 401)
            #expect(errorCode(failed) == "token_endpoint_error")
            try app.sandbox.register(client)

            // Apple does not send the name again; the retry from the same browser still gets it.
            let retry = try await app.authorize(browser, provider: "apple", as: People.bob)
            guard case .post(_, let retryFields) = retry else {
                Issue.record("expected Apple to answer with a form POST")
                return
            }
            try #require(
                !retryFields.contains { $0.0 == "user" }, "the sandbox resent the name; the test proves nothing")
            #expect(try await app.deliver(retry, in: browser).status == 303)
            #expect(try await app.session(browser).json?["name"]?.stringValue == "Bob Other")
        }
    }
}
