/// What every log line of one request carries: its id, route template and provider. Set by
/// ``SignInServer/handle(_:)`` for the duration of the request, read by the server's logger and the audit trail
/// only (observability context, like the trace's ``ActiveSpan``: no route decides by it), so that handlers need not
/// pass it to every line they write.
struct RequestContext: Sendable {
    /// The request's id, also sent back as `X-Request-Id`.
    let requestID: String
    /// The route template (`/auth/{provider}/callback`), never the raw path.
    let route: String
    /// The configured provider the path names, if any.
    let provider: String?
    /// The client's address (``HTTPServerRequest/remoteAddress``), for the audit trail; never written to the
    /// request log line.
    var clientAddress: String? = nil
    /// The request's audit events, gathered while it runs and queued together when it is answered; `nil` without
    /// an audit trail.
    var auditBatch: AuditTrail.Batch? = nil

    /// Adds the fields every line of the request carries: `request_id`, and `route` and `provider` unless the
    /// event set them.
    func addFields(to metadata: inout [String: String]) {
        metadata["request_id"] = requestID
        if metadata["route"] == nil { metadata["route"] = route }
        if metadata["provider"] == nil, let provider { metadata["provider"] = provider }
    }

    /// The context of the request being handled by this task.
    @TaskLocal static var current: RequestContext?
}

/// Adds the current request's id, route and provider to every event before passing it on.
struct RequestScopedLogger: ServerLogger {
    let base: any ServerLogger

    func log(_ level: ServerLogLevel, _ message: String, metadata: [String: String]) {
        guard base.isEnabled(level) else { return }
        guard let context = RequestContext.current else {
            base.log(level, message, metadata: metadata)
            return
        }
        var metadata = metadata
        // Room for the three fields added here, so the dictionary is not regrown (and rehashed) twice.
        metadata.reserveCapacity(metadata.count + 3)
        context.addFields(to: &metadata)
        base.log(level, message, metadata: metadata)
    }

    func isEnabled(_ level: ServerLogLevel) -> Bool { base.isEnabled(level) }
}
