import AuthFlow
import AuthFlowHTTP
import Foundation

extension Tracer {
    /// The parent a request continues: its `traceparent` (and `tracestate`) only when it came through a trusted
    /// proxy (`server.trusted_proxies`) and is well-formed; from anyone else the headers are ignored.
    static func incomingParent(of request: HTTPServerRequest) -> TraceContext? {
        guard request.viaTrustedProxy else { return nil }
        let parents = request.headers.values("traceparent")
        guard parents.count == 1 else { return nil }
        let states = request.headers.values("tracestate")
        return TraceContext.parse(
            traceparent: parents[0], tracestate: states.isEmpty ? nil : states.joined(separator: ","))
    }

    /// Opens the SERVER span of `request`, named `{method} {route}` (HTTP semantic conventions). With
    /// `droppingEarly`, for a request no client span can belong to (one answered at once), a span the queue would
    /// refuse (``admits(_:)``) is dropped and counted now, before its ids and record are made: `nil`.
    func startServerSpan(
        _ request: HTTPServerRequest, route: String, at start: Date, droppingEarly: Bool = false
    ) -> ActiveSpan? {
        let parent = Self.incomingParent(of: request)
        if droppingEarly, (parent?.flags ?? 1) & 1 == 1, !queue.admitting() { return nil }
        return open(Self.method(request.method) + " " + route, kind: .server, parent: parent, at: start)
    }

    /// Ends the SERVER span of `request` with its answer: an error status for a 5xx.
    func endServerSpan(
        _ span: ActiveSpan, request: HTTPServerRequest, context: RequestContext, status: Int, failure: ServerError?
    ) {
        guard admits(span) else { return }
        var attributes: [SpanAttribute] = [
            SpanAttribute("http.request.method", .string(Self.method(request.method))),
            SpanAttribute("url.path", .string(Self.bounded(request.path))),
            SpanAttribute("http.route", .string(context.route)),
            SpanAttribute("http.response.status_code", .int(Int64(status))),
            SpanAttribute("client.address", .string(request.remoteAddress)),
            SpanAttribute("authflow.request_id", .string(context.requestID)),
        ]
        attributes += serverAddress
        if let agent = request.headers["User-Agent"] {
            attributes.append(SpanAttribute("user_agent.original", .string(Self.bounded(agent))))
        }
        if let provider = context.provider { attributes.append(SpanAttribute("authflow.provider", .string(provider))) }
        if let failure {
            attributes.append(SpanAttribute("error.type", .string(failure.code.rawValue)))
        } else if status >= 500 {
            attributes.append(SpanAttribute("error.type", .string(String(status))))
        }
        close(span, status: status >= 500 ? .error : .unset, adding: attributes)
    }

    /// Opens the CLIENT span of an outgoing `request`, a child of `parent` (the request's server span) or the
    /// root of a new trace.
    func startClientSpan(_ request: HTTPClientRequest, parent: ActiveSpan?) -> ActiveSpan {
        let name = endpointName(of: request.url)
        let method = Self.method(request.method)
        return open(
            name.map { method + " " + $0.endpoint } ?? method, kind: .client, parent: parent?.context,
            at: clock.now())
    }

    /// Ends the CLIENT span of `request`: its status, or the transport failure's code (an error status for both a
    /// failure and a status of 400 or more).
    func endClientSpan(_ span: ActiveSpan, request: HTTPClientRequest, status: Int?, failure: String?) {
        guard admits(span) else { return }
        let bare = Self.withoutQuery(request.url)
        var attributes: [SpanAttribute] = [
            SpanAttribute("http.request.method", .string(Self.method(request.method))),
            SpanAttribute("url.full", .string(Self.bounded(bare))),
        ]
        attributes += Self.addressAttributes(of: bare, scheme: false)
        if let name = endpointName(of: request.url) {
            if !name.provider.isEmpty { attributes.append(SpanAttribute("authflow.provider", .string(name.provider))) }
            attributes.append(SpanAttribute("authflow.provider.endpoint", .string(name.endpoint)))
        }
        if let status { attributes.append(SpanAttribute("http.response.status_code", .int(Int64(status)))) }
        if let failure {
            attributes.append(SpanAttribute("error.type", .string(failure)))
        } else if let status, status >= 400 {
            attributes.append(SpanAttribute("error.type", .string(String(status))))
        }
        let failed = failure != nil || (status ?? 0) >= 400
        close(span, status: failed ? .error : .unset, adding: attributes)
    }

    /// The method as the semantic conventions record it: a known method, else `_OTHER`.
    static func method(_ method: String) -> String {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH": method
        default: "_OTHER"
        }
    }

    /// Whether `span` is to be exported and the queue has room for it: a span that would be dropped is counted as
    /// dropped at once, and its attributes are never built.
    func admits(_ span: ActiveSpan) -> Bool {
        span.context.flags & 1 == 1 && queue.admitting()
    }

    /// `value` cut to its first ``maximumValueBytes`` characters; the value itself (no copy) when shorter.
    static func bounded(_ value: String) -> String {
        value.utf8.count <= maximumValueBytes ? value : String(value.prefix(maximumValueBytes))
    }

    /// The longest attribute value taken from a request (a path, a user agent, a URL).
    static let maximumValueBytes = 1024
}
