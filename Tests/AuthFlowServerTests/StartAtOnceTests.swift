import AuthFlow
import AuthFlowHTTP
import Testing

@testable import AuthFlowServer

@Suite("Sign-in starts answered at once: the answer handle gives, or none when the start waits for something")
struct StartAtOnceTests {
    static func request(
        _ path: String, method: String = "GET", query: [(String, String)] = [], address: String = "127.0.0.3"
    ) -> HTTPServerRequest {
        HTTPServerRequest(
            method: method, path: path, query: query, headers: ["Accept": "text/html"], remoteAddress: address)
    }

    /// The response's header names in order, and each value with the start's random parts (state, nonce,
    /// challenge, the flow cookie's name and sealed value, the request id) left out.
    static func shape(_ response: HTTPServerResponse) -> [String] {
        response.headers.map { name, value in
            switch name {
            case "Location": name + ": " + (value.split(separator: "?").first.map(String.init) ?? "")
            case "Set-Cookie": name + ": " + value.split(separator: ";").dropFirst().joined(separator: ";")
            case "X-Request-Id": name
            default: name + ": " + value
            }
        }
    }

    @Test func aStartAnsweredAtOnceHasTheStatusAndHeadersHandleGives() async throws {
        try await TestDeployment.with { app in
            for path in ["/auth/google/login", "/auth/facebook/register"] {
                let query = [("return_to", "/")]
                let atOnce = try #require(app.server.startAtOnce(Self.request(path, query: query)))
                let handled = await app.server.handle(Self.request(path, query: query))
                #expect(atOnce.status == 302)
                #expect(Self.shape(atOnce) == Self.shape(handled))
                #expect(atOnce.body == handled.body)
                let head = try #require(app.server.startAtOnce(Self.request(path, method: "HEAD", query: query)))
                #expect(head.status == 302)
            }
        }
    }

    @Test func aRefusedStartIsRefusedAtOnceWithTheSameError() async throws {
        try await TestDeployment.with { app in
            let query = [("return_to", "https://elsewhere.example/")]
            let atOnce = try #require(app.server.startAtOnce(Self.request("/auth/google/login", query: query)))
            let handled = await app.server.handle(Self.request("/auth/google/login", query: query))
            #expect(atOnce.status == 400)
            #expect(Self.shape(atOnce) == Self.shape(handled))
            #expect(atOnce.body == handled.body)
        }
    }

    @Test func startsThatWaitForSomethingAreLeftToHandle() async throws {
        try await TestDeployment.with { app in
            // A link reads the session; Apple's first-login name lives in a store; no such provider; not a start.
            #expect(app.server.startAtOnce(Self.request("/auth/google/link")) == nil)
            #expect(app.server.startAtOnce(Self.request("/auth/apple/login")) == nil)
            #expect(app.server.startAtOnce(Self.request("/auth/github/login")) == nil)
            #expect(app.server.startAtOnce(Self.request("/auth/google/login", method: "POST")) == nil)
            #expect(app.server.startAtOnce(Self.request("/auth/check")) == nil)
        }
    }

    /// A server on `app`'s providers whose starts' buckets hold three tokens and live in `rateLimits`.
    static func server(_ app: TestDeployment, rateLimits: any RateLimitStore) -> SignInServer {
        var stores = SignInServer.Stores.memory(clock: app.clock)
        stores.rateLimits = rateLimits
        return SignInServer(
            options: SignInServer.Options(
                publicURL: app.appURL, secret: Secret("test-secret-0123456789abcdef-0123456789"),
                rateLimits: RateLimitSettings(
                    starts: .init(perMinute: 60, burst: 3), callbacks: .init(perMinute: 60, burst: 2))),
            providers: Array(app.server.providers.values), stores: stores, httpClient: CurlHTTPClient(),
            clock: app.clock)
    }

    @Test func theRateLimitAtOnceTakesFromTheBucketsHandleUses() async throws {
        try await TestDeployment.with { app in
            let server = Self.server(app, rateLimits: InMemoryRateLimitStore(clock: app.clock))
            let login = Self.request("/auth/google/login")
            #expect(try #require(server.startAtOnce(login)).status == 302)
            #expect(await server.handle(login).status == 302)
            #expect(try #require(server.startAtOnce(login)).status == 302)
            let refused = try #require(server.startAtOnce(login))
            let handled = await server.handle(login)
            #expect(refused.status == 429 && handled.status == 429)
            #expect(refused.headers["Retry-After"] == "1")
            #expect(Self.shape(refused) == Self.shape(handled))
            app.clock.advance(by: 1)
            #expect(try #require(server.startAtOnce(login)).status == 302)
        }
    }

    @Test func aRateLimitInASharedStoreLeavesTheStartToHandle() async throws {
        try await TestDeployment.with { app in
            let server = Self.server(app, rateLimits: SharedBuckets(InMemoryRateLimitStore(clock: app.clock)))
            #expect(server.startAtOnce(Self.request("/auth/google/login")) == nil)
            #expect(await server.handle(Self.request("/auth/google/login")).status == 302)
        }
    }
}

/// Buckets as a shared store keeps them (behind a round trip), for the server's point of view.
private struct SharedBuckets: RateLimitStore {
    let buckets: InMemoryRateLimitStore

    init(_ buckets: InMemoryRateLimitStore) { self.buckets = buckets }

    func consume(key: String, capacity: Double, refillPerSecond: Double) async throws(StoreError) -> RateLimitDecision {
        try buckets.consume(key: key, capacity: capacity, refillPerSecond: refillPerSecond)
    }
}
