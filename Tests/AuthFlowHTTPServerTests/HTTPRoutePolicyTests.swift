import AuthFlowHTTP
import AuthFlowHTTPTestSupport
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowCurl
@testable import AuthFlowHTTP
@testable import AuthFlowHTTPServer

/// Per-route body limits and where handlers start, decided from the method and path before the body is read.
@Suite("HTTPServer route policies", .timeLimit(.minutes(1)))
struct HTTPRoutePolicyTests {
    /// `/small` takes 1 KiB and starts on the handler threads; `/inline` takes 1 KiB and starts on the polling
    /// thread; anything else takes no body. The server's own cap is 64 KiB.
    static let policy: HTTPRoutePolicyProvider = { _, path in
        switch path {
        case "/small": HTTPRoutePolicy(maxBodyBytes: 1024, startsOnPollingThread: false)
        case "/inline": HTTPRoutePolicy(maxBodyBytes: 1024)
        case "/own-refusal":
            HTTPRoutePolicy(
                maxBodyBytes: 16, tooLargeResponse: .error("invalid_event", message: "too big", status: 400))
        default: HTTPRoutePolicy(maxBodyBytes: 0)
        }
    }

    /// Runs `body` with a server whose handler counts calls and answers with the body's size and whether it
    /// runs on a thread that may block (a handler thread, not the polling thread).
    static func with(_ body: (Int, Counter) async throws -> Void) async throws {
        try await withServer { _, port, calls in try await body(port, calls) }
    }

    static func withServer(_ body: (HTTPServer, Int, Counter) async throws -> Void) async throws {
        let calls = Counter()
        let server = HTTPServer(configuration: .init(maxBodyBytes: 64 * 1024), routePolicy: policy) { request in
            calls.increment()
            return .text("\(request.body.count) \(BlockingThreads.currentThreadMayBlock ? "handler" : "polling")")
        }
        let port = try server.start()
        do {
            try await body(server, port, calls)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test func refusesAnAnnouncedBodyOverTheRouteLimitBeforeItIsSent() async throws {
        try await Self.with { port, calls in
            let client = try #require(RawClient(from: "127.0.0.1", port: port))
            defer { client.close() }
            // Only the headers: the answer must come without a byte of the body.
            client.write("POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 1025\r\nConnection: close\r\n\r\n")
            let answer = client.readToEnd()
            #expect(answer.text.hasPrefix("HTTP/1.1 413"), "\(answer.text.prefix(200))")
            #expect(answer.text.contains("request_too_large"))
            #expect(calls.value == 0)
        }
    }

    @Test func refusesAChunkedBodyOnceItPassesTheRouteLimit() async throws {
        try await Self.with { port, calls in
            let client = try #require(RawClient(from: "127.0.0.1", port: port))
            defer { client.close() }
            client.write("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            let chunk = String(repeating: "a", count: 512)
            for _ in 0..<4 { client.write("200\r\n\(chunk)\r\n") }
            client.write("0\r\n\r\n")
            let answer = client.readToEnd()
            #expect(answer.text.hasPrefix("HTTP/1.1 413"), "\(answer.text.prefix(200))")
            #expect(calls.value == 0)
        }
    }

    @Test func aClientStreamingFarPastTheLimitIsCutOff() async throws {
        try await Self.with { port, calls in
            let client = try #require(RawClient(from: "127.0.0.1", port: port))
            defer { client.close() }
            client.write("POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            // Far more than the route takes: the server stops reading (nothing past the limit is kept) and
            // closes the connection instead of waiting for the end.
            let chunk = String(repeating: "a", count: 4096)
            for _ in 0..<64 { client.write("1000\r\n\(chunk)\r\n") }
            let answer = client.readToEnd()
            #expect(answer.closed)
            #expect(!answer.text.contains("HTTP/1.1 200"))
            #expect(calls.value == 0)
        }
    }

    @Test func aBodyWithinTheRouteLimitReachesTheHandler() async throws {
        try await Self.with { port, calls in
            let response = try await CurlHTTPClient().send(
                HTTPClientRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)/small", body: Array(repeating: 0x61, count: 1024)))
            #expect(response.status == 200)
            #expect(response.bodyText == "1024 handler")
            let over = try await CurlHTTPClient().send(
                HTTPClientRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)/small", body: Array(repeating: 0x61, count: 1025)))
            #expect(over.status == 413)
            #expect(calls.value == 1)
        }
    }

    @Test func aRouteWithoutABodyRefusesOneThatTheServerCapWouldTake() async throws {
        try await Self.with { port, calls in
            let response = try await CurlHTTPClient().send(
                HTTPClientRequest(method: "POST", url: "http://127.0.0.1:\(port)/other", body: [0x61]))
            #expect(response.status == 413)
            #expect(calls.value == 0)
        }
    }

    @Test func aRouteMayAnswerAnOversizedBodyItsOwnWay() async throws {
        try await Self.with { port, _ in
            let response = try await CurlHTTPClient().send(
                HTTPClientRequest(
                    method: "POST", url: "http://127.0.0.1:\(port)/own-refusal", body: Array(repeating: 0x61, count: 17)
                ))
            #expect(response.status == 400)
            #expect(response.bodyText.contains("invalid_event"))
        }
    }

    @Test func aRouteWithABodyStartsOffThePollingThread() async throws {
        try await Self.with { port, _ in
            let off = try await CurlHTTPClient().send(
                HTTPClientRequest(method: "POST", url: "http://127.0.0.1:\(port)/small", body: [0x61]))
            #expect(off.bodyText == "1 handler")
            let inline = try await CurlHTTPClient().send(
                HTTPClientRequest(method: "POST", url: "http://127.0.0.1:\(port)/inline", body: [0x61]))
            #expect(inline.bodyText == "1 polling")
        }
    }

    /// Uploads that stall past their route's limit hold nothing; within it, no more than the limit each.
    @Test func stalledUploadsHoldNoMoreThanTheirRouteLimit() async throws {
        try await Self.withServer { server, port, calls in
            var clients: [RawClient] = []
            defer { for client in clients { client.close() } }
            let chunk = String(repeating: "a", count: 4096)
            for index in 0..<40 {
                let client = try #require(RawClient(from: "127.0.0.1", port: port))
                clients.append(client)
                // Half within the server's cap but past `/small`'s 1 KiB, half to `/inline` within it; none ends.
                let path = index % 2 == 0 ? "/small" : "/inline"
                client.write("POST \(path) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                client.write(
                    index % 2 == 0 ? "1000\r\n\(chunk)\r\n1000\r\n\(chunk)\r\n" : "200\r\n\(chunk.prefix(512))\r\n")
            }
            // Wait until the server has received every body byte the clients sent (kept or discarded).
            let sent = 20 * 2 * 4096 + 20 * 512
            try await waitUntil("\(sent) body bytes received") { server.receivedBodyBytes >= sent }
            #expect(server.receivedBodyBytes == sent)
            #expect(server.bufferedBodyBytes == 20 * 512)
            #expect(calls.value == 0)
        }
    }
}
