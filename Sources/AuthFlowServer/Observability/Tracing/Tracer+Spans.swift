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

    /// Opens the SERVER span of `request`, named `{method} {route}` (HTTP semantic conventions).
    func startServerSpan(_ request: HTTPServerRequest, route: String, at start: Date) -> ActiveSpan {
        let method = Self.method(request.method)
        let span = open(method + " " + route, kind: .server, parent: Self.incomingParent(of: request), at: start)
        return span
    }

    /// Ends the SERVER span of `request` with its answer: an error status for a 5xx.
    func endServerSpan(
        _ span: ActiveSpan, request: HTTPServerRequest, context: RequestContext, status: Int, failure: ServerError?
    ) {
        var attributes: [SpanAttribute] = [
            SpanAttribute("http.request.method", .string(Self.method(request.method))),
            SpanAttribute("url.path", .string(String(request.path.prefix(Self.maximumValueBytes)))),
            SpanAttribute("http.route", .string(context.route)),
            SpanAttribute("http.response.status_code", .int(Int64(status))),
            SpanAttribute("client.address", .string(request.remoteAddress)),
            SpanAttribute("authflow.request_id", .string(context.requestID)),
        ]
        attributes += serverAddress
        if let agent = request.headers["User-Agent"] {
            attributes.append(
                SpanAttribute("user_agent.original", .string(String(agent.prefix(Self.maximumValueBytes)))))
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
        let bare = Self.withoutQuery(request.url)
        var attributes: [SpanAttribute] = [
            SpanAttribute("http.request.method", .string(Self.method(request.method))),
            SpanAttribute("url.full", .string(String(bare.prefix(Self.maximumValueBytes)))),
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
        knownMethods.contains(method) ? method : "_OTHER"
    }

    static let knownMethods: Set<String> = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
    ]

    /// The longest attribute value taken from a request (a path, a user agent, a URL).
    static let maximumValueBytes = 1024
}
