import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowHTTPServer
import Foundation
import Synchronization

/// A loopback HTTP server of the test's own between the relying party and the sandbox.
///
/// It forwards every request unchanged (through libcurl) and returns the sandbox's answer unchanged,
/// unless a test installs a hook that rewrites the request on its way in or the response on its way back:
/// the way an OpenID Connect conformance suite's misbehaving provider is emulated without touching the
/// code under test or the sandbox.
final class Interposer: Sendable {
    /// A request as it will be forwarded.
    struct Forwarded: Sendable {
        var method: String
        var path: String
        var query: [(String, String)]
        var headers: HTTPHeaders
        var body: [UInt8]

        /// The form body's fields.
        var form: [(String, String)] {
            get { FormURLEncoding.decode(String(decoding: body, as: UTF8.self)) }
            set { body = Array(FormURLEncoding.encode(newValue).utf8) }
        }
    }

    typealias RequestHook = @Sendable (inout Forwarded) -> Void
    typealias ResponseHook = @Sendable (_ path: String, _ response: inout HTTPServerResponse) -> Void

    final class Hooks: Sendable {
        let request = Mutex<RequestHook?>(nil)
        let response = Mutex<ResponseHook?>(nil)
        let paths = Mutex<[String]>([])
    }

    let server: HTTPServer
    let hooks: Hooks
    let baseURL: String

    /// Starts forwarding to `target` (e.g. the sandbox's base URL).
    init(target: String, client: CurlHTTPClient) throws {
        let hooks = Hooks()
        server = HTTPServer(configuration: .init()) { request in
            await Self.forward(request, to: target, client: client, hooks: hooks)
        }
        baseURL = "http://127.0.0.1:\(try server.start())"
        self.hooks = hooks
    }

    func stop() async { await server.stop() }

    /// Rewrites each request before it is forwarded.
    func onRequest(_ hook: RequestHook?) { hooks.request.withLock { $0 = hook } }

    /// Rewrites each response before it is returned.
    func onResponse(_ hook: ResponseHook?) { hooks.response.withLock { $0 = hook } }

    /// The paths forwarded so far, oldest first.
    var paths: [String] { hooks.paths.withLock { $0 } }

    static let hopByHop: Set<String> = [
        "host", "content-length", "connection", "transfer-encoding", "keep-alive", "expect", "te", "upgrade",
    ]

    static func forward(_ request: HTTPServerRequest, to target: String, client: CurlHTTPClient, hooks: Hooks) async
        -> HTTPServerResponse
    {
        var forwarded = Forwarded(
            method: request.method, path: request.path, query: request.query, headers: request.headers,
            body: request.body)
        if let hook = hooks.request.withLock({ $0 }) { hook(&forwarded) }
        hooks.paths.withLock { $0.append(forwarded.path) }
        var url = target + forwarded.path
        if !forwarded.query.isEmpty { url += "?" + FormURLEncoding.encode(forwarded.query) }
        var outgoing = HTTPClientRequest(
            method: forwarded.method, url: url, body: forwarded.body.isEmpty ? nil : forwarded.body)
        for (name, value) in forwarded.headers where !hopByHop.contains(name.lowercased()) {
            outgoing.headers.add(name, value)
        }
        outgoing.timeout = 60
        var response: HTTPServerResponse
        do {
            let answer = try await client.send(outgoing)
            var headers = HTTPHeaders()
            for (name, value) in answer.headers where !hopByHop.contains(name.lowercased()) {
                headers.add(name, value)
            }
            response = HTTPServerResponse(status: answer.status, headers: headers, body: answer.body)
        } catch {
            return .error("bad_gateway", message: "the interposer could not reach the sandbox", status: 502)
        }
        if let hook = hooks.response.withLock({ $0 }) { hook(forwarded.path, &response) }
        return response
    }
}
