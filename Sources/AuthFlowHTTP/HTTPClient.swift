/// Sends HTTP requests. `CurlHTTPClient` is the production implementation; tests of the layers
/// above supply in-process fakes.
public protocol HTTPClient: Sendable {
    /// Sends `request` and returns the response, whatever its status (a 3xx or 4xx is a response,
    /// not an error; redirects are never followed).
    ///
    /// - Throws: `HTTPClientError` when no complete response could be obtained (invalid request,
    ///   connection or TLS failure, timeout, response too large, cancellation).
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse
}
