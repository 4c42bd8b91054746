/// Names and attributes of the two cookies the server sets.
///
/// - The **session cookie** (`authflow_session`, or `__Host-authflow_session` over https) holds a random
///   256-bit session id; `HttpOnly; SameSite=Lax; Path=/`, `Secure` unless the public URL is
///   `http://` on a loopback host (browsers do not keep Secure cookies for plain-http localhost reliably).
/// - The **flow cookie** (`authflow_flow`) binds a sign-in to the browser that began it: a random value
///   plus its HMAC under `server.secret` (see `FlowCookie`); `HttpOnly; SameSite=Lax; Path=/auth/`, the
///   same `Secure` rule, and a lifetime of ``flowCookieLifetime``.
public struct CookiePolicy: Sendable, Hashable {
    /// Seconds the flow cookie lives (one hour; each sign-in start refreshes it).
    public static let flowCookieLifetime = 3600

    /// Whether cookies carry `Secure`.
    public let secure: Bool
    /// The session cookie's name.
    public let sessionCookieName: String
    /// The flow cookie's name.
    public let flowCookieName: String

    /// The policy for a server reached at `publicURL`.
    public init(publicURL: String) {
        let lower = publicURL.lowercased()
        let loopbackHTTP =
            lower.hasPrefix("http://")
            && ReturnToPolicy.origin(of: lower).map { origin in
                let host = Self.host(ofOrigin: origin)
                return host == "localhost" || host.hasPrefix("127.") || host == "[::1]"
                    || host.hasSuffix(".localhost")
            } == true
        secure = !loopbackHTTP
        sessionCookieName = secure ? "__Host-authflow_session" : "authflow_session"
        flowCookieName = "authflow_flow"
    }

    /// `Set-Cookie` for a new session lasting `maxAge` seconds.
    public func sessionCookie(_ id: String, maxAge: Int) -> String {
        attributes("\(sessionCookieName)=\(id)", path: "/", maxAge: maxAge)
    }

    /// `Set-Cookie` that removes the session cookie.
    public func clearedSessionCookie() -> String {
        attributes("\(sessionCookieName)=", path: "/", maxAge: 0)
    }

    /// `Set-Cookie` for the flow cookie.
    public func flowCookie(_ value: String) -> String {
        attributes("\(flowCookieName)=\(value)", path: "/auth/", maxAge: Self.flowCookieLifetime)
    }

    private func attributes(_ pair: String, path: String, maxAge: Int) -> String {
        var text = "\(pair); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
        if secure { text += "; Secure" }
        return text
    }

    static func host(ofOrigin origin: String) -> Substring {
        let afterScheme = origin.drop { $0 != "/" }.dropFirst(2)
        if afterScheme.hasPrefix("[") {
            return afterScheme.prefix { $0 != "]" } + "]"
        }
        return afterScheme.prefix { $0 != ":" }
    }
}
