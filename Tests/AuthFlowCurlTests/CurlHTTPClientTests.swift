import AuthFlowHTTPTestSupport
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowCurl
@testable import AuthFlowHTTP

/// CurlHTTPClient against an independent server (Python http.server) on loopback.
@Suite(
    "CurlHTTPClient against a Python server",
    .enabled(if: PythonPeer.available || PythonPeer.requirePeers, "needs python3 or AUTHFLOW_PYTHON"),
    .timeLimit(.minutes(1)))
struct CurlHTTPClientTests {
    /// Slots of its own for transfers on handler threads, so tests running at the same time cannot send this
    /// client's handler-thread requests to the multi loop.
    let client = CurlHTTPClient(configuration: .init(), directSlots: CurlDirectSlots(limit: 4))

    private func json(_ response: HTTPClientResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    private func header(_ name: String, in echo: [String: Any]) -> [String] {
        let headers = echo["headers"] as? [[String]] ?? []
        return headers.filter { $0.count == 2 && $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }

    private func expectError(
        _ code: HTTPClientError.Code, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> HTTPClientResponse
    ) async {
        do {
            let response = try await body()
            Issue.record("expected \(code), got status \(response.status)", sourceLocation: sourceLocation)
        } catch let error as HTTPClientError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected HTTPClientError \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func getsWithQueryAndHeaders() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                var request = HTTPClientRequest(url: server.base + "/echo?a=1&b=two%20words")
                request.headers.add("X-Trace", "one")
                request.headers.add("X-Trace", "two")
                let response = try await caller.send(with: client, request)
                #expect(response.status == 200)
                #expect(response.headers["content-type"] == "application/json")
                let echo = try json(response)
                #expect(echo["method"] as? String == "GET")
                #expect(echo["query"] as? [[String]] == [["a", "1"], ["b", "two words"]])
                #expect(header("X-Trace", in: echo) == ["one", "two"])
                #expect(header("User-Agent", in: echo) == ["AuthFlow"])
            }
        }
    }

    @Test func postsFormBody() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let request = HTTPClientRequest.form(
                    url: server.base + "/echo", fields: [("grant_type", "authorization_code"), ("code", "a b&c=d+é")])
                let echo = try json(try await caller.send(with: client, request))
                #expect(echo["method"] as? String == "POST")
                #expect(echo["body"] as? String == "grant_type=authorization_code&code=a+b%26c%3Dd%2B%C3%A9")
                #expect(header("Content-Type", in: echo) == ["application/x-www-form-urlencoded"])
                #expect(header("Expect", in: echo).isEmpty)
            }
        }
    }

    @Test func sendsJSONBodyWithOtherMethods() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let body = Array(#"{"hello":"wörld"}"#.utf8)
                let echo = try json(
                    try await caller.send(with: client, .json(url: server.base + "/echo", body: body, method: "PUT")))
                #expect(echo["method"] as? String == "PUT")
                #expect(echo["body"] as? String == #"{"hello":"wörld"}"#)
                #expect(header("Content-Type", in: echo) == ["application/json"])
            }
        }
    }

    @Test func sendsLargeRequestBody() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let body = [UInt8](repeating: UInt8(ascii: "z"), count: 300_000)
                let echo = try json(
                    try await caller.send(
                        with: client, HTTPClientRequest(method: "POST", url: server.base + "/echo", body: body)))
                #expect((echo["body"] as? String)?.utf8.count == 300_000)
            }
        }
    }

    /// The typed `timeout` is the event: without it the peer's answer would arrive after 20 s, as a 200.
    @Test func timesOutWithTypedError() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                var request = HTTPClientRequest(url: server.base + "/sleep?seconds=20")
                request.timeout = 0.5
                await expectError(.timeout) { try await caller.send(with: client, request) }
            }
        }
    }

    @Test func defaultTimeoutApplies() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let quick = CurlHTTPClient(configuration: .init(defaultTimeout: 0.4))
                await expectError(.timeout) {
                    try await caller.send(with: quick, HTTPClientRequest(url: server.base + "/sleep?seconds=20"))
                }
            }
        }
    }

    @Test func refusesAnnouncedLargeBody() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let small = CurlHTTPClient(configuration: .init(maxResponseBytes: 1000))
                await expectError(.responseTooLarge) {
                    try await caller.send(with: small, HTTPClientRequest(url: server.base + "/large?bytes=1001"))
                }
                let exact = try await caller.send(
                    with: small, HTTPClientRequest(url: server.base + "/large?bytes=1000"))
                #expect(exact.status == 200)
                #expect(exact.body.count == 1000)
            }
        }
    }

    @Test func refusesStreamedLargeBody() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let small = CurlHTTPClient(configuration: .init(maxResponseBytes: 1000))
                await expectError(.responseTooLarge) {
                    try await caller.send(with: small, HTTPClientRequest(url: server.base + "/stream?bytes=200000"))
                }
                let fits = try await caller.send(with: small, HTTPClientRequest(url: server.base + "/stream?bytes=999"))
                #expect(fits.body.count == 999)
            }
        }
    }

    @Test func doesNotFollowRedirects() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let response = try await caller.send(with: client, HTTPClientRequest(url: server.base + "/redirect"))
                #expect(response.status == 302)
                #expect(response.headers["Location"] == "/echo")
            }
        }
    }

    @Test func returnsErrorStatusesAsResponses() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let response = try await caller.send(
                    with: client, HTTPClientRequest(url: server.base + "/status?code=401"))
                #expect(response.status == 401)
            }
        }
    }

    @Test func basicAuthorizationFollowsRFC6749() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                var request = HTTPClientRequest(url: server.base + "/basic")
                request.setBasicAuthorization(user: "my client:id é+&~", password: "s3cr%t =/?*")
                // Form-urlencoded first ("my+client%3Aid+%C3%A9%2B%26~:s3cr%25t+%3D%2F%3F%2A"), then base64.
                #expect(
                    request.headers["Authorization"]
                        == "Basic bXkrY2xpZW50JTNBaWQrJUMzJUE5JTJCJTI2fjpzM2NyJTI1dCslM0QlMkYlM0YlMkE=")
                let decoded = try json(try await caller.send(with: client, request))
                #expect(decoded["user"] as? String == "my client:id é+&~")
                #expect(decoded["password"] as? String == "s3cr%t =/?*")
            }
        }
    }

    @Test func sendsBearerToken() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                var request = HTTPClientRequest(url: server.base + "/echo")
                request.setBearer("token-123")
                let echo = try json(try await caller.send(with: client, request))
                #expect(header("Authorization", in: echo) == ["Bearer token-123"])
            }
        }
    }

    @Test(arguments: Caller.allCases)
    func reportsConnectionRefused(from caller: Caller) async throws {
        // Nothing listens on port 1 of the loopback interface.
        await expectError(.connectionFailed) {
            try await caller.send(with: client, HTTPClientRequest(url: "http://127.0.0.1:1/"))
        }
    }

    @Test(arguments: [
        "file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/", "dict://127.0.0.1:1/", "/relative",
    ])
    func refusesNonHTTPSchemes(url: String) async {
        await expectError(.unsupportedScheme) { try await client.send(HTTPClientRequest(url: url)) }
    }

    @Test(arguments: Caller.allCases)
    func refusesHeaderInjectionAndBadMethods(from caller: Caller) async {
        var injected = HTTPClientRequest(url: "http://127.0.0.1:1/")
        injected.headers["X-Test"] = "a\r\nInjected: yes"
        await expectError(.invalidRequest) { try await caller.send(with: client, injected) }
        await expectError(.invalidRequest) {
            try await caller.send(with: client, HTTPClientRequest(method: "GET /x", url: "http://127.0.0.1:1/"))
        }
        await expectError(.invalidURL) {
            try await caller.send(with: client, HTTPClientRequest(url: "http://127.0.0.1:1/a b"))
        }
        var negative = HTTPClientRequest(url: "http://127.0.0.1:1/")
        negative.timeout = -1
        await expectError(.invalidRequest) { try await caller.send(with: client, negative) }
    }

    @Test(arguments: Caller.allCases)
    func errorsNeverCarryTheQueryOrCredentials(from caller: Caller) async throws {
        do {
            _ = try await caller.send(
                with: client, HTTPClientRequest(url: "http://user:pw@127.0.0.1:1/token?code=SECRETCODE#frag"))
            Issue.record("expected a connection failure")
        } catch let error as HTTPClientError {
            #expect(error.url == "http://127.0.0.1:1/token")
            #expect(!error.description.contains("SECRETCODE"))
            #expect(!error.description.contains("pw"))
        }
    }

    @Test func completesManyConcurrentRequests() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            try await caller.send(
                                with: client, HTTPClientRequest(url: server.base + "/echo?i=\(index)")
                            )
                            .status
                        }
                    }
                    var statuses: [Int] = []
                    for try await status in group { statuses.append(status) }
                    return statuses
                }
                #expect(statuses.count == 200)
                #expect(statuses.allSatisfy { $0 == 200 })
            }
        }
    }

    @Test func reusesConnections() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                var ports: Set<Int> = []
                for _ in 0..<5 {
                    let echo = try json(
                        try await caller.send(with: client, HTTPClientRequest(url: server.base + "/echo")))
                    ports.insert(try #require(echo["client_port"] as? Int))
                }
                #expect(ports.count == 1)
            }
        }
    }

    /// The typed `cancelled` is the event: an uncancelled request would end after 20 s with a 200.
    @Test func cancellationAbortsTheTransfer() async throws {
        try await PeerServer.with { server in
            // From a task (the multi loop) and from a handler thread (the direct path), on one peer.
            for caller in Caller.allCases {
                let before = try await server.seen("/sleep")
                let task = Task {
                    try await caller.send(with: client, HTTPClientRequest(url: server.base + "/sleep?seconds=20"))
                }
                // Cancelled once the transfer is under way: the peer has the request.
                try await waitUntil("the peer to receive /sleep") { try await server.seen("/sleep") > before }
                task.cancel()
                await expectError(.cancelled) { try await task.value }
                // An already-cancelled task fails at once, too.
                let early = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await caller.send(
                        with: client, HTTPClientRequest(url: server.base + "/sleep?seconds=20"))
                }
                await expectError(.cancelled) { try await early.value }
            }
        }
    }
}

/// Where a test's requests are sent from: a task on Swift's cooperative threads (the multi loop's thread runs
/// the transfer) or a task on an HTTP handler thread (which runs the transfer itself).
enum Caller: String, CaseIterable, Sendable {
    case task
    case handlerThread

    /// The blocking threads standing in for a server's handler threads.
    static let handlerThreads = BlockingThreads(name: "curl-test-handler")

    func send(with client: CurlHTTPClient, _ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        switch self {
        case .task:
            return try await client.send(request)
        case .handlerThread:
            return try await withTaskExecutorPreference(Self.handlerThreads.executor) {
                try #require(BlockingThreads.currentThreadMayBlock)
                return try await client.send(request)
            }
        }
    }
}

/// A request sent from an HTTP handler thread runs on that thread, on a kept handle, at most as many at once as
/// there are slots (each client here has four of its own, so tests running at the same time do not take them).
@Suite(
    "CurlHTTPClient on handler threads",
    .enabled(if: PythonPeer.available || PythonPeer.requirePeers, "needs python3 or AUTHFLOW_PYTHON"),
    .timeLimit(.minutes(1)))
struct CurlHTTPClientDirectTests {
    @Test func runsARequestFromAHandlerThreadOnAKeptHandle() async throws {
        try await PeerServer.with { server in
            let client = CurlHTTPClient(configuration: .init(), directSlots: CurlDirectSlots(limit: 4))
            _ = try await Caller.task.send(with: client, HTTPClientRequest(url: server.base + "/echo"))
            #expect(client.direct.idleCount == 0)  // the multi loop ran it
            let response = try await Caller.handlerThread.send(
                with: client, HTTPClientRequest(url: server.base + "/echo"))
            #expect(response.status == 200)
            #expect(client.direct.idleCount == 1)
        }
    }

    /// Six slow requests from handler threads at once: four run on their threads (four handles, the limit), the
    /// other two through the multi loop, and all six answer.
    @Test func runsAtMostFourAtOnceAndSendsTheRestThroughTheLoop() async throws {
        try await PeerServer.with { server in
            let client = CurlHTTPClient(configuration: .init(), directSlots: CurlDirectSlots(limit: 4))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        try await Caller.handlerThread.send(
                            with: client, HTTPClientRequest(url: server.base + "/sleep?seconds=1")
                        ).status
                    }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses == Array(repeating: 200, count: 6))
            #expect(client.direct.idleCount == 4)
        }
    }
}
