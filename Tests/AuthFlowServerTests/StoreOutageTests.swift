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

/// The server on SQLite stores whose tables disappear while it runs (the store fails every query on them):
/// each route that needs the store answers a typed 503 `store_unavailable`, counts the failure under that
/// store, and sets no session cookie; the routes that do not need it keep working.
@Suite("A store that stops answering: typed 503s, counted, no session handed out")
struct StoreOutageTests {
    func withSQLite(_ body: (TestDeployment, SQLiteDatabase) async throws -> Void) async throws {
        let file = TemporarySQLiteFile("outage")
        defer { file.remove() }
        var settings = TestDeployment.Settings()
        settings.stores = { clock in try file.stores(clock: clock) }
        settings.metrics = try ServerMetrics(providers: settings.providers)
        try await TestDeployment.with(settings) { app in
            try await body(app, try SQLiteDatabase(path: file.path))
        }
    }

    func drop(_ table: String, in database: SQLiteDatabase) async throws {
        try await database.perform("test") { connection throws(StoreError) in
            try connection.execute("DROP TABLE \(table)", operation: "test")
        }
    }

    func storeErrors(_ app: TestDeployment, _ store: String) -> Int {
        let request = HTTPServerRequest(method: "GET", path: "/metrics", remoteAddress: "127.0.0.1")
        let text = String(decoding: app.server.metricsResponse(request).body, as: UTF8.self)
        let series = #"authflow_store_errors_total{store="\#(store)"} "#
        return text.split(separator: "\n").first { $0.hasPrefix(series) }.flatMap { Int($0.dropFirst(series.count)) }
            ?? -1
    }

    @Test func aSessionStoreThatFailsAnswers503OnEveryRouteThatNeedsIt() async throws {
        try await withSQLite { app, database in
            let browser = TestBrowser()
            #expect(try await app.signIn(browser, provider: "google", as: People.alice).status == 302)
            #expect(try await app.session(browser).status == 200)
            #expect(storeErrors(app, "sessions") == 0)
            try await drop("sessions", in: database)
            // Past the one-second session cache, so the lookup asks the store.
            app.clock.advance(by: 2)

            let lookup = try await browser.get(app.appURL + "/auth/session")
            #expect(lookup.status == 503)
            #expect(errorCode(lookup) == "store_unavailable")
            let logout = try await browser.post(app.appURL + "/auth/logout", from: app.appURL)
            #expect(logout.status == 503)
            #expect(errorCode(logout) == "store_unavailable")
            let fresh = TestBrowser()
            let signIn = try await app.signIn(fresh, provider: "google", as: People.bob)
            #expect(signIn.status == 503)
            #expect(errorCode(signIn) == "store_unavailable")
            #expect(fresh.cookie(app.sessionCookie, for: app.appURL) == nil)
            #expect(storeErrors(app, "sessions") == 3)
            // A route that needs no session store still answers.
            #expect(try await TestBrowser().get(app.appURL + "/auth/google/login").status == 302)
        }
    }

    @Test func anAccountStoreThatFailsRefusesTheSignInAndKeepsNoSession() async throws {
        try await withSQLite { app, database in
            try await drop("identities", in: database)
            let browser = TestBrowser()
            let refused = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(refused.status == 503)
            #expect(errorCode(refused) == "store_unavailable")
            #expect(browser.cookie(app.sessionCookie, for: app.appURL) == nil)
            #expect(storeErrors(app, "accounts") == 1)
            #expect(storeErrors(app, "sessions") == 0)
        }
    }
}
