import AuthFlowHTTP

/// An ``HTTPClient`` that records each request as a CLIENT span (a child of the request's server span, or the root
/// of a new trace outside a request, as at discovery) and sends the span's `traceparent` (and `tracestate`) with it.
package struct TracingHTTPClient: HTTPClient {
    let base: any HTTPClient
    let tracer: Tracer

    package init(base: any HTTPClient, tracer: Tracer) {
        self.base = base
        self.tracer = tracer
    }

    package func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let span = tracer.startClientSpan(request, parent: ActiveSpan.current)
        var outgoing = request
        outgoing.headers["traceparent"] = span.context.traceparent
        if let state = span.context.state { outgoing.headers["tracestate"] = state }
        do {
            let response = try await base.send(outgoing)
            tracer.endClientSpan(span, request: request, status: response.status, failure: nil)
            return response
        } catch let error as HTTPClientError {
            tracer.endClientSpan(span, request: request, status: nil, failure: error.code.rawValue)
            throw error
        } catch {
            tracer.endClientSpan(span, request: request, status: nil, failure: "error")
            throw error
        }
    }
}
