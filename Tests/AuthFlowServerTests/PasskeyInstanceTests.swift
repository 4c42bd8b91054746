import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowPostgres
import AuthFlowProviders
import AuthFlowRedis
import AuthFlowStoreTestSupport
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowServer

/// Two instances of the server over one PostgreSQL database (accounts) and one Redis (sessions, spent states):
/// a ceremony one instance issued is accepted by the other, once.
@Suite struct PasskeyInstanceTests {
    /// PostgreSQL accounts and Redis sessions, spent states and rate limits, as `store.kind: postgres` with Redis.
    static func stores(postgresURL: String, redis: RedisClient, clock: any WallClock) throws -> SignInServer.Stores {
        let postgres = PostgresStores(
            database: try PostgresDatabase(url: postgresURL, maximumConnections: 2),
            cipher: try TokenCipher(secret: StoreHarness.secret, random: SystemRandom()), clock: clock)
        let shared = RedisStores(client: redis, clock: clock)
        return SignInServer.Stores(
            flows: shared.flows, accounts: postgres.accounts, sessions: shared.sessions, rateLimits: shared.rateLimits)
    }

    @Test func aCeremonyIssuedByOneInstanceIsAcceptedOnceByTheOther() async throws {
        guard TestDatabases.postgresURL != nil, TestDatabases.redisURL != nil else {
            try #require(!TestDatabases.required, "AUTHFLOW_TEST_POSTGRES_URL and AUTHFLOW_TEST_REDIS_URL are needed")
            return
        }
        let url = try TestDatabases.freshPostgresURL()
        let redis = try TestDatabases.freshRedisClient()
        var settings = PasskeyRouteTests.settings
        settings.stores = { clock in try Self.stores(postgresURL: url, redis: redis, clock: clock) }
        try await TestDeployment.with(settings) { app in
            let other = try SignInServer(
                configuration: app.configuration, registry: .standard,
                stores: try Self.stores(postgresURL: url, redis: redis, clock: app.clock), httpClient: CurlHTTPClient(),
                clock: app.clock)
            let authenticator = SoftwareAuthenticator()
            // Registration: options from the first instance, finished on the second.
            let browser = PasskeyRouteTests.Browser(app)
            let options = try await browser.post("/auth/passkey/register/options", ["name": "alice"])
            let json = try #require(options.json)
            let credential = try authenticator.register(options: json, origin: app.appURL)
            let body = JSONValue.object(["ceremony": json["ceremony"] ?? .null, "credential": credential])
            let finished = await other.handle(Self.post("/auth/passkey/register", body, origin: app.appURL))
            #expect(finished.status == 200, "\(String(decoding: finished.body, as: UTF8.self))")
            // The same ceremony again, on the first instance: spent.
            let replay = try await browser.post("/auth/passkey/register", body)
            #expect(replay.status == 400 && replay.error == "ceremony_reused")

            // Authentication: options from the second instance, finished on the first, then replayed on the second.
            let started = await other.handle(Self.post("/auth/passkey/authenticate/options", [:], origin: app.appURL))
            let request = try JSONValue.parse(started.body)
            let assertion = try authenticator.authenticate(options: request, origin: app.appURL)
            let signIn = JSONValue.object([
                "ceremony": request["ceremony"] ?? .null, "credential": assertion, "session": "bearer",
            ])
            let first = try await app.postJSON(app.appURL + "/auth/passkey/authenticate", signIn)
            #expect(first.status == 200 && first["session_token"] != nil, "\(first.response.text)")
            let again = await other.handle(Self.post("/auth/passkey/authenticate", signIn, origin: nil))
            #expect(again.status == 400)
            #expect(try JSONValue.parse(again.body)["error"]?.stringValue == "ceremony_reused")
            #expect(try await app.stores.accounts.users(after: nil, limit: 10).count == 1)
        }
    }

    static func post(_ path: String, _ body: JSONValue, origin: String?) -> HTTPServerRequest {
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let origin { headers["Origin"] = origin }
        return HTTPServerRequest(
            method: "POST", path: path, headers: headers, body: Array(body.serialized().utf8),
            remoteAddress: "127.0.0.1")
    }
}
