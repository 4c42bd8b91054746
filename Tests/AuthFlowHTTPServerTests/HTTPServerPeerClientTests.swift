import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowHTTPTestSupport
import Foundation
import Testing

/// HTTPServer driven by an independent client (Python `http.client`).
@Suite(
    "HTTPServer with an independent client",
    .enabled(if: PythonPeer.available || PythonPeer.requirePeers, "needs python3 or AUTHFLOW_PYTHON"),
    .timeLimit(.minutes(1)))
struct HTTPServerPeerClientTests {
    let client = CurlHTTPClient()

    @Test func parsesQueryAndFormFromIndependentClient() async throws {
        try await HTTPServerTests.with { _, base in
            let result = try await PeerClientResult.run(
                "POST", base + "/form?q=a+b%26c&q=2&empty=&flag",
                arguments: [
                    "--body", "name=J%C3%B6rg+M&code=x%2By%3Dz&bad=%ZZ%4&name=second",
                    "--header", "Content-Type: application/x-www-form-urlencoded; charset=utf-8",
                ])
            #expect(result.status == 200)
            #expect(
                result.body
                    == "query:q=a b&c|q=2|empty=|flag= form:name=Jörg M|code=x+y=z|bad=%ZZ%4|name=second")
        }
    }

    @Test func refusesBodiesOverTheLimitWith413() async throws {
        let calls = Counter()
        try await HTTPServerTests.with(.init(maxBodyBytes: 1000), handler: HTTPServerTests.handler(calls: calls)) {
            _, base in
            let form = ["--header", "Content-Type: application/x-www-form-urlencoded"]
            let announced = try await PeerClientResult.run(
                "POST", base + "/form", arguments: form + ["--body-size", "1001"])
            #expect(announced.status == 413)
            #expect(announced.body.contains("request_too_large"))
            let chunked = try await PeerClientResult.run(
                "POST", base + "/form", arguments: form + ["--body-size", "5000", "--chunked"])
            #expect(chunked.status == 413)
            let big = try await client.send(
                HTTPClientRequest(method: "POST", url: base + "/form", body: Array(repeating: 0x61, count: 200_000)))
            #expect(big.status == 413)
            #expect(calls.value == 0)
            let fits = try await PeerClientResult.run(
                "POST", base + "/form", arguments: form + ["--body-size", "1000"])
            #expect(fits.status == 200)
            #expect(calls.value == 1)
        }
    }

    @Test func parsesCookiesAndSendsSeveralSetCookieHeaders() async throws {
        try await HTTPServerTests.with { _, base in
            let result = try await PeerClientResult.run(
                "GET", base + "/cookies", arguments: ["--header", #"Cookie: a=1; b="two"; a=3;junk; c=x=y"#])
            #expect(result.status == 200)
            #expect(result.body == "a=1;b=two;c=x=y")
            #expect(
                result.values("Set-Cookie") == [
                    "session=abc; Path=/; HttpOnly; SameSite=Lax", "flow=; Path=/auth; Max-Age=0",
                ])
            let viaCurl = try await client.send(HTTPClientRequest(url: base + "/cookies"))
            #expect(viaCurl.headers.values("set-cookie").count == 2)
        }
    }

    @Test func routesAndAnswers404And405ToIndependentClient() async throws {
        try await HTTPServerTests.with { _, base in
            let routed = try await PeerClientResult.run("GET", base + "/auth/apple/login?return_to=%2Fa+b")
            #expect(routed.status == 200)
            #expect(routed.body == "path=/auth/apple/login return_to=/a b")
            let missing = try await PeerClientResult.run("GET", base + "/missing")
            #expect(missing.status == 404)
            #expect(missing.values("Content-Type") == ["application/json"])
            #expect(missing.body.hasPrefix(#"{"error":"not_found""#))
            let wrong = try await PeerClientResult.run("PATCH", base + "/auth/apple/login")
            #expect(wrong.status == 405)
            #expect(wrong.values("Allow") == ["GET"])
            let remote = try await PeerClientResult.run("GET", base + "/remote")
            #expect(remote.body == "127.0.0.1")
        }
    }
}
