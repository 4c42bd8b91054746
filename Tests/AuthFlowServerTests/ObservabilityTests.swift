import AuthFlow
import AuthFlowDemo
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization
import Testing

@testable import AuthFlowServer

/// Keeps every log event.
final class RecordingLogger: ServerLogger {
    struct Event: Sendable {
        let level: ServerLogLevel
        let message: String
        let metadata: [String: String]
    }
    let events = Mutex<[Event]>([])
    func log(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) {
        events.withLock { $0.append(Event(level: level, message: message, metadata: metadata)) }
    }
    var recorded: [Event] { events.withLock { $0 } }
}

/// Request ids, request log lines and the metrics of the handler, without a network.
@Suite struct ObservabilityTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_796_000_000))
    let logger = RecordingLogger()

    func makeServer(metrics: Bool = true) throws -> SignInServer {
        let options = SignInServer.Options(
            publicURL: "http://localhost:8080", secret: Secret(String(repeating: "s", count: 40)))
        return SignInServer(
            options: options, providers: [], stores: .memory(clock: clock), httpClient: CurlHTTPClient(),
            clock: clock, logger: logger, metrics: metrics ? try ServerMetrics(providers: []) : nil)
    }

    func get(
        _ path: String, query: [(String, String)] = [], from address: String = "127.0.0.1", requestID: String? = nil,
        viaTrustedProxy: Bool = false
    ) -> HTTPServerRequest {
        var headers: HTTPHeaders = [:]
        if let requestID { headers["X-Request-Id"] = requestID }
        return HTTPServerRequest(
            method: "GET", path: path, query: query, headers: headers, remoteAddress: address,
            viaTrustedProxy: viaTrustedProxy)
    }

    func body(_ response: HTTPServerResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func everyResponseCarriesAFreshRequestID() async throws {
        let server = try makeServer()
        var ids: Set<String> = []
        for path in ["/auth/check", "/healthz", "/nowhere", "/auth/google/login"] {
            let response = await server.handle(get(path))
            let id = try #require(response.headers["X-Request-Id"], "\(path)")
            #expect(id.utf8.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
            ids.insert(id)
        }
        #expect(ids.count == 4)
    }

    @Test func takesTheRequestIDOnlyFromATrustedProxyWhenWellFormed() async throws {
        let offered = "0af7651916cd43dd8448eb211c80319c"
        let server = try makeServer()
        // Not through a trusted proxy (loopback included): a client cannot choose its id.
        #expect(await server.handle(get("/auth/check", requestID: offered)).headers["X-Request-Id"] != offered)
        #expect(
            await server.handle(get("/auth/check", from: "::1", requestID: offered)).headers["X-Request-Id"]
                != offered)
        #expect(
            await server.handle(get("/auth/check", requestID: offered, viaTrustedProxy: true))
                .headers["X-Request-Id"] == offered)
        for malformed in ["short", "has space 0123456789", "quote\"0123456789", String(repeating: "a", count: 129)] {
            let response = await server.handle(get("/auth/check", requestID: malformed, viaTrustedProxy: true))
            #expect(response.headers["X-Request-Id"] != malformed)
            #expect(response.headers["X-Request-Id"].map(RequestID.isWellFormed) == true)
        }
    }

    @Test func everyLogLineOfARequestCarriesItsIDRouteAndOutcome() async throws {
        let server = try makeServer()
        let response = await server.handle(get("/auth/logout"))
        #expect(response.status == 405)
        let id = try #require(response.headers["X-Request-Id"])
        let events = logger.recorded
        let line = try #require(events.last)
        #expect(line.message == "request")
        #expect(line.metadata["request_id"] == id)
        #expect(line.metadata["route"] == "/auth/logout")
        #expect(line.metadata["status"] == "405")
        #expect(line.metadata["code"] == "method_not_allowed")
        #expect(line.metadata["duration_ms"] == "0.0")
        #expect(events.allSatisfy { $0.metadata["request_id"] == id })
    }

    @Test func countsChecksAndRequestsByRouteTemplateNeverByRawPath() async throws {
        let server = try makeServer()
        for _ in 0..<2 { #expect(await server.handle(get("/auth/check")).status == 401) }
        #expect(await server.handle(get("/auth/someone-else/callback", query: [("code", "secret-code")])).status == 400)
        #expect(await server.handle(get("/private/user-path-123")).status == 404)
        let text = body(server.metricsResponse(get("/metrics")))
        #expect(text.contains("authflow_sessions_checked_total{result=\"401\"} 2\n"))
        #expect(text.contains("authflow_sessions_checked_total{result=\"202\"} 0\n"))
        #expect(text.contains("authflow_http_requests_total{route=\"/auth/check\",status=\"401\"} 2\n"))
        #expect(text.contains("authflow_http_requests_total{route=\"/auth/{provider}/callback\",status=\"400\"} 1\n"))
        #expect(text.contains("authflow_http_requests_total{route=\"other\",status=\"404\"} 1\n"))
        for leaked in ["someone-else", "secret-code", "user-path-123"] { #expect(!text.contains(leaked)) }
        // An unconfigured provider name never becomes a label value.
        #expect(!text.contains("authflow_sign_ins_total{"))
    }

    @Test func servesMetricsOnlyThroughTheMetricsResponder() async throws {
        let server = try makeServer()
        #expect(await server.handle(get("/metrics")).status == 404)
        let metrics = server.metricsResponse(get("/metrics"))
        #expect(metrics.status == 200)
        #expect(metrics.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        #expect(body(metrics).contains("# TYPE authflow_sign_ins_total counter"))
        #expect(body(metrics).contains("# TYPE process_open_fds gauge"))
        #expect(server.metricsResponse(get("/auth/check")).status == 404)
        let post = HTTPServerRequest(method: "POST", path: "/metrics", remoteAddress: "127.0.0.1")
        #expect(server.metricsResponse(post).status == 405)
        #expect(try makeServer(metrics: false).metricsResponse(get("/metrics")).status == 404)
    }

    @Test func writesDurationsAsMillisecondsWithOneDecimal() {
        #expect(RequestLog.milliseconds(0.0125) == "12.5")
        #expect(RequestLog.milliseconds(1.23456) == "1234.6")
        #expect(RequestLog.milliseconds(0.00004) == "0.0")
        #expect(RequestLog.milliseconds(0) == "0.0")
        #expect(RequestLog.milliseconds(-1) == "0.0")
        #expect(RequestLog.milliseconds(.nan) == "0.0")
    }

    @Test func routeTemplatesNameEveryRouteOfTheContract() {
        let cases: [(String, String)] = [
            ("/", "other"), ("/healthz", "/healthz"), ("/auth/check", "/auth/check"),
            ("/auth/google/login", "/auth/{provider}/login"), ("/auth/x/link", "/auth/{provider}/link"),
            ("/auth/apple/callback", "/auth/{provider}/callback"),
            ("/auth/apple/notifications", "/auth/{provider}/notifications"),
            ("/auth/apple-web/notifications", "/auth/{provider}/notifications"),
            ("/auth/facebook/data-deletion/abc123", "/auth/{provider}/data-deletion/{code}"),
            ("/auth/google/events", "/auth/{provider}/events"), ("/auth/google/unknown", "other"),
            ("/favicon.ico", "other"), ("/auth/google/register", "/auth/{provider}/register"),
            ("/auth/google/disconnect", "/auth/{provider}/disconnect"),
            ("/auth/facebook/deauthorize", "/auth/{provider}/deauthorize"),
            ("/auth/oidc/backchannel-logout", "/auth/{provider}/backchannel-logout"),
            ("/auth/facebook/data-deletion", "/auth/{provider}/data-deletion"), ("/matrix", "other"),
            ("/auth/session", "/auth/session"), ("/auth/logout", "/auth/logout"),
            ("/auth/account/delete", "/auth/account/delete"), ("/auth/account/remove", "other"),
            ("/auth/check/x", "other"), ("/auth", "other"), ("/auth/", "other"), ("/other/google/login", "other"),
            ("/auth/google/login/x", "other"), ("/auth/a/data-deletion/c/d", "other"), ("", "other"),
            ("/auth/google/events/x", "other"), ("/healthz/", "other"),
            ("/auth/apple/native", "/auth/{provider}/native"),
            ("/auth/google/native/nonce", "/auth/{provider}/native/nonce"),
            ("/auth/session/refresh", "/auth/session/refresh"), ("/auth/google/native/x", "other"),
            ("/auth/sessions", "/auth/sessions"), ("/auth/sessions/revoke", "/auth/sessions/revoke"),
        ]
        // The event routes each provider's plugin declares, by provider name (an `apple-web` is Apple's too).
        let endpoints: [String: [ProviderEventEndpoint]] = [
            "apple": [ProviderEventEndpoint(path: "notifications", method: "POST")],
            "apple-web": [ProviderEventEndpoint(path: "notifications", method: "POST")],
            "google": [ProviderEventEndpoint(path: "events", method: "POST")],
            "facebook": [
                ProviderEventEndpoint(path: "data-deletion", method: "POST"),
                ProviderEventEndpoint(path: "data-deletion/*", method: "GET"),
                ProviderEventEndpoint(path: "deauthorize", method: "POST"),
            ],
            "oidc": [ProviderEventEndpoint(path: "backchannel-logout", method: "POST")],
            "a": [ProviderEventEndpoint(path: "data-deletion/*", method: "GET")],
        ]
        for (path, template) in cases {
            let segments = SignInServer.segments(of: path)
            #expect(RouteTable.template(segments) { endpoints[$0] ?? [] } == template, "\(path)")
        }
    }

    /// The server knows no page of the app: the app's pages pass their labels in (the demo its `/` and
    /// `/matrix`), and a path that is none of the server's routes is `other`.
    @Test func theAppsPagesPassTheirOwnRouteLabels() async throws {
        let server = try makeServer()
        _ = await server.respond(to: get("/account/7"), route: "/account/{id}") { _ throws(ServerError) in
            .text("account")
        }
        _ = await server.handle(get("/"))
        _ = await server.handle(get("/matrix"))
        let demo = DemoSite(server: server, sandbox: nil)
        _ = await demo.handle(get("/"))
        _ = await demo.handle(get("/matrix"))
        let metrics = body(server.metricsResponse(get("/metrics")))
        #expect(metrics.contains(#"authflow_http_requests_total{route="/account/{id}",status="200"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"authflow_http_requests_total{route="other",status="404"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"authflow_http_requests_total{route="/matrix",status="200"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"authflow_http_requests_total{route="/",status="#), "\(metrics)")
    }

    /// Event routes are labelled from what the plugins declare, not from a list in the server: an outside
    /// plugin's endpoint is labelled, and a path no plugin of that provider declares is `other`.
    @Test func eventRouteTemplatesComeFromThePluginsDeclaredEndpoints() {
        let corp = [
            ProviderEventEndpoint(path: "hooks/sso", method: "POST"),
            ProviderEventEndpoint(path: "tickets/*/status", method: "GET"),
        ]
        let endpoints: (String) -> [ProviderEventEndpoint] = { $0 == "corp" ? corp : [] }
        let cases: [(String, String)] = [
            ("/auth/corp/hooks/sso", "/auth/{provider}/hooks/sso"),
            ("/auth/corp/tickets/t-42/status", "/auth/{provider}/tickets/{code}/status"),
            ("/auth/corp/hooks", "other"), ("/auth/corp/notifications", "other"),
            // Another provider does not declare them, and the server names no provider's events itself.
            ("/auth/google/hooks/sso", "other"), ("/auth/apple/notifications", "other"),
            ("/auth/facebook/data-deletion", "other"),
            // The server's own routes keep their labels whatever a plugin declares.
            ("/auth/corp/login", "/auth/{provider}/login"),
        ]
        for (path, template) in cases {
            #expect(
                RouteTable.template(SignInServer.segments(of: path), eventEndpoints: endpoints) == template,
                "\(path)")
        }
    }

    @Test func splitsPathsIntoSegmentsWithoutTheLeadingEmptyOne() {
        let cases: [(String, [String])] = [
            ("", []), ("/", [""]), ("//", ["", ""]), ("/auth/check", ["auth", "check"]),
            ("/auth/check/", ["auth", "check", ""]), ("auth/check", ["auth", "check"]), ("//a", ["", "a"]),
            ("/auth/goo%67le/login", ["auth", "goo%67le", "login"]), ("/\u{E4}/b", ["\u{E4}", "b"]),
            (
                "/auth/a-segment-far-longer-than-fifteen-bytes/x",
                ["auth", "a-segment-far-longer-than-fifteen-bytes", "x"]
            ),
        ]
        for (path, segments) in cases {
            #expect(SignInServer.segments(of: path) == segments, "\(path)")
        }
    }

    @Test func standardErrorLinesCarryLevelMessageAndSortedMetadata() {
        let logger = StandardErrorLogger(minimumLevel: .debug)
        let line = logger.line(
            .warning, "request", metadata: ["status": "429", "route": "/auth/{provider}/login", "code": "rate_limited"])
        #expect(
            String(decoding: line, as: UTF8.self)
                == "authflow: warning request code=rate_limited route=/auth/{provider}/login status=429\n")
        #expect(
            String(decoding: logger.line(.info, "started", metadata: [:]), as: UTF8.self) == "authflow: info started\n")
    }
}

@Suite struct JSONLineLoggerTests {
    @Test func writesOneObjectPerLineWithTheFixedKeysFirst() {
        let lines = Mutex<[String]>([])
        let logger = JSONLineLogger(
            clock: ManualClock(Date(timeIntervalSince1970: 1_796_000_000.25)),
            write: { line in
                lines.withLock { $0.append(line) }
            })
        logger.log(
            .warning, "sign-in refused",
            metadata: [
                "provider": "google", "code": "invalid_state", "status": "400", "duration_ms": "12.5",
                "request_id": "abc", "route": "/auth/{provider}/callback", "note": "a \"quoted\"\nvalue",
            ])
        logger.log(.debug, "dropped below the minimum level", metadata: [:])
        let expected: String =
            #"{"time":"2026-11-30T00:53:20.250Z","level":"warning","event":"sign-in refused","request_id":"abc","#
            + #""provider":"google","route":"/auth/{provider}/callback","status":400,"duration_ms":12.5,"#
            + #""code":"invalid_state","note":"a \"quoted\"\nvalue"}"# + "\n"
        let written = lines.withLock { $0 }
        #expect(written == [expected])
    }

    @Test func writesNullForMissingFieldsAndQuotesWhatIsNotAPlainNumber() throws {
        let lines = Mutex<[String]>([])
        let logger = JSONLineLogger(
            clock: ManualClock(Date(timeIntervalSince1970: 0)),
            write: { line in
                lines.withLock { $0.append(line) }
            })
        logger.log(.info, "x", metadata: ["status": "0x1p3"])
        let line = try #require(lines.withLock { $0.first })
        let object = try JSONValue.parse(Array(line.utf8))
        #expect(object["status"]?.stringValue == "0x1p3")
        #expect(object["request_id"] == .null)
        #expect(object["duration_ms"] == .null)
        for text in ["1e5", "inf", "1.", ".5", "1.2.3", "", "-1"] { #expect(!JSONLineLogger.isPlainNumber(text)) }
        for text in ["0", "302", "12.5"] { #expect(JSONLineLogger.isPlainNumber(text)) }
    }
}
