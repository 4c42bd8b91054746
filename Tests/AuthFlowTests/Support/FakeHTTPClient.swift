import AuthFlow
import AuthFlowHTTP
import Foundation
import Synchronization

/// An in-process ``HTTPClient`` for driver tests: answers by URL prefix and records every request.
final class FakeHTTPClient: HTTPClient {
    typealias Handler = @Sendable (HTTPClientRequest) throws -> HTTPClientResponse

    private let routes: Mutex<[(prefix: String, handler: Handler)]> = Mutex([])
    private let log: Mutex<[HTTPClientRequest]> = Mutex([])

    init() {}

    /// Answers requests whose URL starts with `prefix` (later routes win).
    func route(_ prefix: String, _ handler: @escaping Handler) {
        routes.withLock { $0.insert((prefix, handler), at: 0) }
    }

    var requests: [HTTPClientRequest] { log.withLock { $0 } }

    func requests(to prefix: String) -> [HTTPClientRequest] { requests.filter { $0.url.hasPrefix(prefix) } }

    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        log.withLock { $0.append(request) }
        let handler = routes.withLock { routes in routes.first { request.url.hasPrefix($0.prefix) }?.handler }
        guard let handler else { return HTTPClientResponse(status: 404, headers: [:], body: []) }
        return try handler(request)
    }
}
