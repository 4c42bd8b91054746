import AuthFlowHTTP
import Synchronization

/// What the sandbox keeps of the W3C `traceparent` headers relying parties send to its provider endpoints, so tests
/// can see that a traced relying party passes its trace on (docs/tracing.md).
extension SandboxIdentityProvider {
    /// At most this many are kept (the oldest are dropped first).
    static let keptTraceparents = 256

    /// Keeps `request`'s `traceparent` header, when it has one of at most 128 bytes, with the request's path.
    func rememberTraceparent(_ request: HTTPServerRequest) {
        guard let value = request.headers["traceparent"], value.utf8.count <= 128 else { return }
        state.withLock { state in
            state.traceparents.append((path: String(request.path.prefix(256)), traceparent: value))
            if state.traceparents.count > Self.keptTraceparents { state.traceparents.removeFirst() }
        }
    }

    /// `GET /_sandbox/traceparents` (loopback callers only): the `traceparent` headers of the latest requests to
    /// provider endpoints, oldest first, as `{"traceparents": [{"path", "traceparent"}]}`.
    func traceparentsAdmin() -> HTTPServerResponse {
        let kept = state.withLock { $0.traceparents }
        let entries = kept.map { entry in
            JSONValue.object(["path": .string(entry.path), "traceparent": .string(entry.traceparent)])
        }
        var response = HTTPServerResponse.json(JSONValue.object(["traceparents": .array(entries)]).serialized())
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
