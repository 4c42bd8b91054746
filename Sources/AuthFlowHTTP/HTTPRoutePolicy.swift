/// How the server treats one route's requests, decided from the method and path alone, at the first call for a
/// request (before any of its body is read).
///
/// A body longer than its `maxBodyBytes` is refused with 413: at once when `Content-Length` announces it, and as
/// soon as a chunked body passes it (nothing beyond the limit is kept).
package struct HTTPRoutePolicy: Sendable {
    /// The largest body the route accepts (never more than `HTTPServer.Configuration.maxBodyBytes`).
    package var maxBodyBytes: Int
    /// Whether the handler may start on the server's polling thread (an answer without waiting then needs no
    /// thread switch). `false` starts it on the handler threads: for routes that parse a body, so that parsing
    /// never holds up the other connections.
    package var startsOnPollingThread: Bool
    /// The answer to a body over the limit; `nil` answers 413 `request_too_large`.
    package var tooLargeResponse: HTTPServerResponse?

    /// A policy accepting bodies of up to `maxBodyBytes`.
    package init(
        maxBodyBytes: Int, startsOnPollingThread: Bool = true, tooLargeResponse: HTTPServerResponse? = nil
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.startsOnPollingThread = startsOnPollingThread
        self.tooLargeResponse = tooLargeResponse
    }
}

/// The policy of a request's route, from its method and path (without the query); called on the polling thread,
/// so it must answer at once.
package typealias HTTPRoutePolicyProvider = @Sendable (_ method: String, _ path: String) -> HTTPRoutePolicy
