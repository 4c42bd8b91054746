public import AuthFlowHTTP

/// A request routed to a plugin's ``ProviderEventEndpoint``, untrusted until the plugin has verified it.
public struct ProviderEventRequest: Sendable {
    /// The endpoint the request matched.
    public let endpoint: ProviderEventEndpoint
    /// The values of the endpoint's `*` path segments, in order (still percent-encoded).
    public let pathParameters: [String]
    /// The HTTP request as received (its body is within the endpoint's body limit).
    public let http: HTTPServerRequest

    /// Creates a routed request.
    package init(endpoint: ProviderEventEndpoint, pathParameters: [String], http: HTTPServerRequest) {
        self.endpoint = endpoint
        self.pathParameters = pathParameters
        self.http = http
    }

    /// The body's form fields (`application/x-www-form-urlencoded`), or `nil` when the body has another
    /// media type or repeats a field (a repeated field is ambiguous, so it is refused).
    public var formFields: [String: String]? {
        guard let pairs = try? http.formFields() else { return nil }
        var fields: [String: String] = [:]
        for (name, value) in pairs {
            guard fields.updateValue(value, forKey: name) == nil else { return nil }
        }
        return fields
    }
}
