import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowHTTPTestSupport
import AuthFlowTestSupport
import Foundation
import Synchronization
import Testing

/// HTTPServer on loopback, driven by CurlHTTPClient and by an independent Python client.
@Suite("HTTPServer on loopback", .timeLimit(.minutes(1)))
struct HTTPServerTests {
    let client = CurlHTTPClient()

    /// The handler of a few routes used across the tests (by method and path); 405 with `Allow` for another
    /// method on a login path, 404 for any other request.
    static func handler(calls: Counter = Counter()) -> HTTPHandler {
        { request in
            switch (request.method, request.path) {
            case ("GET", let path) where path.hasPrefix("/auth/") && path.hasSuffix("/login"):
                return .text("path=\(path) return_to=\(request.queryValue("return_to") ?? "-")")
            case (_, let path) where path.hasPrefix("/auth/") && path.hasSuffix("/login"):
                var response = HTTPServerResponse.error(
                    "method_not_allowed", message: "This path does not accept this method.", status: 405)
                response.headers["Allow"] = "GET"
                return response
            case ("POST", "/form"):
                calls.increment()
                do throws(HTTPServerError) {
                    let fields = try request.formFields()
                    let query = request.query.map { "\($0.0)=\($0.1)" }.joined(separator: "|")
                    return .text(
                        "query:" + query + " form:" + fields.map { "\($0.0)=\($0.1)" }.joined(separator: "|"))
                } catch {
                    return .error(error.code.rawValue, message: error.message, status: 415)
                }
            case ("POST", "/json"):
                do throws(HTTPServerError) {
                    return .json(try request.jsonBody())
                } catch {
                    return .error(error.code.rawValue, message: error.message, status: 415)
                }
            case ("GET", "/cookies"):
                let cookies = request.cookies().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                var response = HTTPServerResponse.text(cookies.joined(separator: ";"))
                response.addCookie("session=abc; Path=/; HttpOnly; SameSite=Lax")
                response.addCookie("flow=; Path=/auth; Max-Age=0")
                return response
            case ("GET", "/waits"):
                // Waits on something outside the handler, as one waiting on a store or a provider does.
                await HandlerWait.onAnotherThread()
                return .text("waited")
            case ("GET", "/fast"):
                return .text("fast")
            case ("GET", "/remote"):
                return .text(request.remoteAddress)
            case ("GET", "/bad-header"):
                return HTTPServerResponse(status: 200, headers: ["X-Split": "a\r\nSet-Cookie: evil=1"], body: [])
            case ("GET", "/bad-name"):
                // The name asked for (`X Bad`, `X-(`, `X-Ä`, …) is not an HTTP token.
                let name = request.queryValue("name") ?? ""
                return HTTPServerResponse(status: 200, headers: ["X-Fine": "1", name: "v"], body: Array("body".utf8))
            case ("GET", "/token-name"):
                return HTTPServerResponse(status: 200, headers: ["X-!#$%&'*+-.^_`|~09azAZ": "v"], body: [])
            case ("GET", "/empty"):
                return .empty(status: Int(request.queryValue("status") ?? "204") ?? 204)
            default:
                return .error("not_found", message: "No route matches this path.", status: 404)
            }
        }
    }

    static func with<T>(
        _ configuration: HTTPServer.Configuration = .init(), handler: @escaping HTTPHandler = handler(),
        _ body: (HTTPServer, String) async throws -> T
    ) async throws -> T {
        let server = HTTPServer(configuration: configuration, handler: handler)
        let port = try server.start()
        do {
            let result = try await body(server, "http://127.0.0.1:\(port)")
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func passesTheRawPathAndTheDecodedQuery() async throws {
        try await Self.with { _, base in
            let response = try await client.send(
                HTTPClientRequest(url: base + "/auth/goo%67le/login?return_to=%2Fhome%3Fa%3D1&x=y"))
            #expect(response.status == 200)
            #expect(response.bodyText == "path=/auth/goo%67le/login return_to=/home?a=1")
        }
    }

    @Test func refusesFormAccessOnOtherMediaTypes() async throws {
        try await Self.with { _, base in
            let response = try await client.send(.json(url: base + "/form", body: Array("{}".utf8)))
            #expect(response.status == 415)
            #expect(response.bodyText.contains("unsupported_media_type"))
            let json = try await client.send(.json(url: base + "/json", body: Array(#"{"a":[1,2]}"#.utf8)))
            #expect(json.status == 200)
            #expect(json.bodyText == #"{"a":[1,2]}"#)
            let notJSON = try await client.send(.form(url: base + "/json", fields: [("a", "1")]))
            #expect(notJSON.status == 415)
        }
    }

    @Test func slowHandlerDoesNotBlockOtherRequests() async throws {
        let started = Counter()
        let finished = Counter()
        let release = Latch()
        defer { release.open() }
        let server = Self.slowServer(.init(threads: 1), started: started, finished: finished, release: release)
        let port = try server.start()
        let base = "http://127.0.0.1:\(port)"
        // The slow handler waits until the test releases it, so the order below does not depend on how busy the
        // machine is.
        let slow = Task { try await client.send(HTTPClientRequest(url: base + "/slow")) }
        try await Self.wait(for: started, toReach: 1)
        let fast = try await client.send(HTTPClientRequest(url: base + "/fast"))
        let slowFinishedBeforeFast = finished.value
        release.open()
        #expect(fast.bodyText == "fast")
        #expect(slowFinishedBeforeFast == 0, "the fast request waited for the slow handler")
        let slowResponse = try await slow.value
        #expect(slowResponse.bodyText == "slow done")
        await server.stop()
    }

    /// A server whose `/slow` handler counts its starts in `started`, waits until `release` is opened (a
    /// handler waiting on a slow store or provider), then counts its ends in `finished`.
    static func slowServer(
        _ configuration: HTTPServer.Configuration = .init(), started: Counter, finished: Counter = Counter(),
        release: Latch
    ) -> HTTPServer {
        HTTPServer(configuration: configuration) { request in
            guard request.path == "/slow" else { return .text("fast") }
            started.increment()
            await release.wait()
            finished.increment()
            return .text("slow done")
        }
    }

    /// Waits (at most 60 s: in the full parallel suite a task may wait long for a cooperative thread) until
    /// `counter` reaches `value`.
    static func wait(for counter: Counter, toReach value: Int) async throws {
        try await waitUntil("\(value) handler starts", deadline: .seconds(60)) { counter.value >= value }
    }

    @Test func gracefulStopLetsInFlightRequestFinish() async throws {
        let started = Counter()
        let release = Latch()
        defer { release.open() }
        // A grace period no busy machine outlasts: the handler finishes as soon as it is released.
        let server = Self.slowServer(.init(shutdownGracePeriod: 60), started: started, release: release)
        let port = try server.start()
        let base = "http://127.0.0.1:\(port)"
        let slow = Task { try await client.send(HTTPClientRequest(url: base + "/slow")) }
        try await Self.wait(for: started, toReach: 1)
        // The handler is released only once the stop has begun (the server no longer counts as running).
        let stopping = Task { await server.stop() }
        try await waitUntil("the stop to begin") { !server.isRunning }
        release.open()
        await stopping.value
        let response = try await slow.value
        #expect(response.status == 200)
        #expect(response.bodyText == "slow done")
        #expect(!server.isRunning)
        #expect(!LoopbackPort.ownsListeningSocket(on: port))
        // A child spawned by a concurrent test may hold the socket for an instant (see below).
        #expect(await noLongerListening(on: port))
        do {
            _ = try await CurlHTTPClient().send(HTTPClientRequest(url: base + "/fast"))
            Issue.record("expected the stopped server to refuse connections")
        } catch let error as HTTPClientError {
            #expect(error.code == .connectionFailed)
        }
    }

    @Test func stopAnswers503WhenHandlersOutliveTheGracePeriod() async throws {
        let started = Counter()
        let release = Latch()
        defer { release.open() }
        let server = Self.slowServer(.init(shutdownGracePeriod: 0.2), started: started, release: release)
        let port = try server.start()
        let slow = Task { try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/slow")) }
        try await Self.wait(for: started, toReach: 1)
        // The handler is released only after the stop returned: it outlives any grace period.
        await server.stop()
        // The 503 is the event: had stop waited for the handler, it would not have returned.
        let response = try await slow.value
        #expect(response.status == 503)
        #expect(response.bodyText.contains("shutting_down"))
    }

    /// Starts a server on a free port BELOW the kernel's ephemeral range, so that servers other tests
    /// start on port 0 at the same time can never be given this port while it is briefly free.
    static func startOutsideEphemeralRange() throws -> (HTTPServer, Int) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let candidate = Int.random(in: 20_000..<32_000, using: &generator)
            let server = HTTPServer(configuration: .init(port: candidate), handler: Self.handler())
            if let port = try? server.start() { return (server, port) }
        }
        throw HTTPServerError(code: .startFailed, message: "no free port found in 20000–31999")
    }

    /// Stopping closes the listen socket in this process at once, and the port can be bound again.
    ///
    /// Other tests in this process spawn children concurrently; a child between its clone and its
    /// exec briefly shares this process's descriptors (close-on-exec ones included), so the port may
    /// stay in LISTEN for an instant after `stop()` without anything here leaking. The leak check is
    /// therefore on this process's own descriptors, and the system-wide check and rebinding allow a
    /// short settling time.
    @Test func restartsRepeatedlyOnTheSamePortWithoutLeaking() async throws {
        let (server, port) = try Self.startOutsideEphemeralRange()
        #expect(LoopbackPort.ownsListeningSocket(on: port))
        await server.stop()
        #expect(!LoopbackPort.ownsListeningSocket(on: port))
        #expect(await noLongerListening(on: port))
        for _ in 0..<5 {
            let again = HTTPServer(configuration: .init(port: port), handler: Self.handler())
            #expect(try await start(again) == port)
            let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(port)/fast"))
            #expect(response.status == 200)
            #expect(LoopbackPort.ownsListeningSocket(on: port))
            await again.stop()
            #expect(!LoopbackPort.ownsListeningSocket(on: port))
            #expect(await noLongerListening(on: port))
            #expect(try await start(again) == port)
            await again.stop()
            #expect(!LoopbackPort.ownsListeningSocket(on: port))
        }
    }

    /// Starts `server`, retrying a refused bind until the port is free again (see the test above; 30 s at most).
    private func start(_ server: HTTPServer) async throws -> Int {
        try await waitFor("the port to be free to bind again") {
            let result = Result { () throws(HTTPServerError) -> Int in try server.start() }
            if case .failure(let error) = result, error.code == .startFailed { return nil }
            return try result.get()
        }
    }

    /// Whether, within 30 s, no process listens on `port` any more.
    private func noLongerListening(on port: Int) async -> Bool {
        await eventually { LoopbackPort.listeningSocketInodes(on: port).isEmpty }
    }

    @Test func refusesSecondStartAndBusyPortAndBadHost() async throws {
        try await Self.with { server, base in
            #expect(throws: HTTPServerError.self) { try server.start() }
            let busy = HTTPServer(configuration: .init(port: server.port)) { _ in .empty() }
            do throws(HTTPServerError) {
                _ = try busy.start()
                Issue.record("expected the busy port to be refused")
            } catch {
                #expect(error.code == .startFailed)
            }
            _ = base
        }
        let badHost = HTTPServer(configuration: .init(host: "example.com")) { _ in .empty() }
        do throws(HTTPServerError) {
            _ = try badHost.start()
            Issue.record("expected a host name to be refused")
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
    }

    @Test func servesEightKiBOfCookiesAndRefusesHeadersBeyondTheConnectionMemoryWith431() async throws {
        try await Self.with { _, base in
            // 16 cookies of 500 bytes in one Cookie header: 8 KiB, what common proxies pass on.
            var large = HTTPClientRequest(url: base + "/cookies")
            large.headers["Cookie"] = (0..<16).map { "c\($0)=" + String(repeating: "v", count: 500) }
                .joined(separator: "; ")
            let served = try await client.send(large)
            #expect(served.status == 200)
            #expect(served.bodyText.components(separatedBy: ";").count == 16)
            // Headers beyond the per-connection memory are refused, not a crash or a hang.
            var huge = HTTPClientRequest(url: base + "/fast")
            huge.headers["X-Large"] = String(repeating: "x", count: 64 * 1024)
            let refused = try await client.send(huge)
            #expect(refused.status == 431)
            // The server goes on serving.
            #expect(try await client.send(HTTPClientRequest(url: base + "/fast")).bodyText == "fast")
        }
    }

    @Test func exposesRemoteAddress() async throws {
        try await Self.with { _, base in
            let response = try await client.send(HTTPClientRequest(url: base + "/remote"))
            #expect(response.bodyText == "127.0.0.1")
        }
    }

    @Test func listensOnIPv6Loopback() async throws {
        let server = HTTPServer(configuration: .init(host: "::1"), handler: Self.handler())
        let port: Int
        do {
            port = try server.start()
        } catch {
            // Only a machine without IPv6 loopback may refuse, and not when CI requires every peer.
            #expect(!FileManager.default.fileExists(atPath: "/proc/net/if_inet6"), "\(error)")
            #expect(
                ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] != "1",
                "AUTHFLOW_REQUIRE_PEERS=1 but [::1] cannot be listened on: \(error)")
            return
        }
        let response = try await client.send(HTTPClientRequest(url: "http://[::1]:\(port)/remote"))
        #expect(response.bodyText == "::1")
        await server.stop()
    }

    @Test func replacesResponsesWithInjectedHeadersBy500() async throws {
        try await Self.with { _, base in
            let response = try await client.send(HTTPClientRequest(url: base + "/bad-header"))
            #expect(response.status == 500)
            #expect(response.headers["Set-Cookie"] == nil)
        }
    }

    @Test func replacesResponsesWithHeaderNamesThatAreNotTokensBy500() async throws {
        try await Self.with { _, base in
            for name in ["X Bad", "X-(", "X-Ä", "X:Y", "", "X\u{7F}", "X@Y", "X\"Y", "X/Y", "X{Y}"] {
                let escaped = FormURLEncoding.escape(name)
                let response = try await client.send(HTTPClientRequest(url: base + "/bad-name?name=" + escaped))
                #expect(response.status == 500, "\(name)")
                #expect(response.headers["X-Fine"] == nil, "\(name)")
                #expect(response.bodyText.contains("invalid_response"), "\(name)")
            }
            let token = try await client.send(HTTPClientRequest(url: base + "/token-name"))
            #expect(token.status == 200)
            #expect(token.headers["X-!#$%&'*+-.^_`|~09azAZ"] == "v")
        }
    }

    @Test func sendsResponsesWithoutBody() async throws {
        try await Self.with { _, base in
            for status in [204, 202, 200] {
                let response = try await client.send(HTTPClientRequest(url: base + "/empty?status=\(status)"))
                #expect(response.status == status)
                #expect(response.body.isEmpty)
                if status != 204 { #expect(response.headers["Content-Length"] == "0") }
            }
        }
    }

    @Test func servesManyConcurrentRequestsWithAThreadPool() async throws {
        try await Self.with(.init(threads: 2)) { _, base in
            let count = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await client.send(HTTPClientRequest(url: base + (index % 5 == 0 ? "/fast" : "/waits")))
                            .status
                    }
                }
                var ok = 0
                for try await status in group where status == 200 { ok += 1 }
                return ok
            }
            #expect(count == 100)
        }
    }
}
