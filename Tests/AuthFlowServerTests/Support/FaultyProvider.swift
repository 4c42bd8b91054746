import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowTestSupport
import Foundation
import Synchronization

/// A real loopback HTTP server standing between the sign-in server and the sandbox, answering chosen paths
/// the way a provider in trouble does (5xx, 429, an HTML error page, a huge body, no answer at all) and
/// forwarding everything else to the sandbox unchanged.
final class FaultyProvider: Sendable {
    /// How one request is answered.
    enum Fault: Sendable {
        /// This status, headers and body instead of the sandbox's answer.
        case answer(status: Int, headers: [(String, String)], body: [UInt8])
        /// No answer at all: the request is held until the provider stops (the client's timeout ends it).
        case hang
    }

    private let server: HTTPServer
    private let target = Mutex<String?>(nil)
    private let faults = Mutex<[String: Fault]>([:])
    private let counts = Mutex<[String: Int]>([:])
    private let client = CurlHTTPClient()
    /// Holds hanging requests; opened when the provider stops.
    private let hangers = Latch()
    /// Where the provider's endpoints are published (`http://127.0.0.1:PORT`).
    let baseURL: String

    init() throws {
        let box = Mutex<FaultyProvider?>(nil)
        server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            guard let provider = box.withLock({ $0 }) else { return .empty(status: 503) }
            return await provider.answer(request)
        }
        baseURL = "http://127.0.0.1:\(try server.start())"
        box.withLock { $0 = self }
    }

    /// Sets the sandbox everything not faulted is forwarded to.
    func forward(to sandbox: String) { target.withLock { $0 = sandbox } }

    /// Answers requests for `path` with `fault` from now on (`nil`: forward again).
    func set(_ path: String, _ fault: Fault?) { faults.withLock { $0[path] = fault } }

    /// How many requests for `path` arrived.
    func requests(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }

    /// Lets hanging requests end (so stopping need not wait out the grace period for them), then stops.
    func stop() async {
        hangers.open()
        await server.stop()
    }

    private func answer(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        counts.withLock { $0[request.path, default: 0] += 1 }
        switch faults.withLock({ $0[request.path] }) {
        case .answer(let status, let headers, let body)?:
            var response = HTTPServerResponse(status: status, body: body)
            for (name, value) in headers { response.headers[name] = value }
            return response
        case .hang?:
            await hangers.wait()
            return .empty(status: 504)
        case nil:
            return await forwarded(request)
        }
    }

    private func forwarded(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let target = target.withLock({ $0 }) else { return .empty(status: 503) }
        var url = target + request.path
        if !request.query.isEmpty { url += "?" + FormURLEncoding.encode(request.query) }
        var outgoing = HTTPClientRequest(
            method: request.method, url: url, body: request.body.isEmpty ? nil : request.body)
        for (name, value) in request.headers
        where !["host", "content-length", "connection", "transfer-encoding", "expect"].contains(name.lowercased()) {
            outgoing.headers.add(name, value)
        }
        do {
            let answer = try await client.send(outgoing)
            var response = HTTPServerResponse(status: answer.status, body: answer.body)
            for (name, value) in answer.headers
            where !["content-length", "connection", "transfer-encoding"].contains(name.lowercased()) {
                response.headers.add(name, value)
            }
            return response
        } catch {
            return .empty(status: 502)
        }
    }
}
