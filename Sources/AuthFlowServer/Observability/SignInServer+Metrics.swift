import AuthFlowHTTP

extension SignInServer {
    /// `GET /metrics` for the metrics listener (`server.metrics_listen`): the Prometheus text format, 404 at
    /// any other path, 405 for other methods, 404 when the server collects no metrics. Never mount it on the
    /// public listener.
    package func metricsResponse(_ request: HTTPServerRequest) -> HTTPServerResponse {
        var response: HTTPServerResponse
        if request.path != "/metrics" || context.metrics == nil {
            response = .error("not_found", message: "expected GET /metrics, found another path", status: 404)
        } else if request.method != "GET" && request.method != "HEAD" {
            response = .error(
                "method_not_allowed", message: "expected GET, found \(request.method.prefix(16))", status: 405)
            response.headers["Allow"] = "GET, HEAD"
        } else {
            response = .text(context.metrics?.registry.render() ?? "")
            response.headers["Content-Type"] = MetricsRegistry.contentType
        }
        response.headers["Cache-Control"] = "no-store"
        response.headers[RequestID.header] = context.random.requestID()
        return response
    }
}
