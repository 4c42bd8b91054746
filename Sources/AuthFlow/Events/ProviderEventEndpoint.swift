/// An HTTP endpoint a provider plugin serves under `/auth/{name}/` for the provider's own server-to-server
/// events (Apple's notifications, Facebook's data deletion callback, Google RISC, OIDC back-channel logout).
///
/// The server routes a request to the endpoint when the path after `/auth/{name}/` matches its path, refuses
/// another method with 405 and a larger body with 413 before the plugin sees it, then calls
/// ``ProviderEventHandling/handleEvent(_:context:)``.
public struct ProviderEventEndpoint: Sendable, Hashable {
    /// The path segments after `/auth/{name}/`; a `*` segment matches any one non-empty segment (passed to
    /// the plugin in ``ProviderEventRequest/pathParameters``). Never `login`, `register`, `link`, `callback`
    /// or `disconnect`, which the server keeps for itself.
    package let path: [String]
    /// The HTTP method, e.g. `"POST"` (`HEAD` requests are routed as `GET`).
    package let method: String
    /// The largest body accepted, in bytes (the server's own cap applies too).
    package let maximumBodyBytes: Int
    /// The error code of the server's refusals before the plugin runs (a body over the limit), so an
    /// endpoint keeps one documented code, e.g. Apple's `invalid_notification`.
    package let errorCode: String
    /// Whether the provider's issuer may frame the endpoint's page (OpenID Connect Front-Channel Logout: the
    /// issuer renders it in an iframe). The server then answers it with `Content-Security-Policy:
    /// frame-ancestors` naming the issuer's origin and no `X-Frame-Options`; every other response keeps
    /// `X-Frame-Options: DENY`. `false` unless set.
    package var framableByIssuer = false

    /// Creates an endpoint; `path` is written with `/` between segments, e.g. `"data-deletion/*"`.
    public init(path: String, method: String, maximumBodyBytes: Int = 64 * 1024, errorCode: String = "invalid_event") {
        self.path = path.split(separator: "/").map(String.init)
        self.method = method
        self.maximumBodyBytes = maximumBodyBytes
        self.errorCode = errorCode
    }

    /// The values of the `*` segments when `segments` matches ``path``, `nil` otherwise.
    package func match(_ segments: [String]) -> [String]? {
        guard segments.count == path.count else { return nil }
        var parameters: [String] = []
        for (pattern, segment) in zip(path, segments) {
            if pattern == "*" {
                guard !segment.isEmpty else { return nil }
                parameters.append(segment)
            } else if pattern != segment {
                return nil
            }
        }
        return parameters
    }
}
