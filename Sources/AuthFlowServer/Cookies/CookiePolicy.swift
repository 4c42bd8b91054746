package import AuthFlow
package import Foundation

/// Names and attributes of the cookies the server sets.
///
/// - The **session cookie** (`authflow_session`, or `__Host-authflow_session` over https) holds a random
///   256-bit session id; `HttpOnly; SameSite=Lax; Path=/`, `Secure` unless the public URL is
///   `http://` on a loopback host (browsers do not keep Secure cookies for plain-http localhost reliably).
/// - One **flow cookie** per sign-in in progress (`authflow_flow_PROVIDER.XXXXXXXX.SECONDS`, or
///   `__Host-authflow_flow_…` over https, where `XXXXXXXX` is derived from the flow's state and `SECONDS` is
///   when it began): the flow record sealed with AES-256-GCM (`FlowRecordSeal`); `HttpOnly; SameSite=Lax;
///   Path=/`, the same `Secure` rule, and the flow's lifetime.
///
/// The `__Host-` prefix makes browsers refuse the cookie unless it is `Secure`, host-only and `Path=/`, so a
/// sibling subdomain cannot set (toss) one.
package struct CookiePolicy: Sendable, Hashable {

    /// Whether cookies carry `Secure`.
    package let secure: Bool
    /// The session cookie's name.
    package let sessionCookieName: String
    /// The start of every flow cookie's name (a flow adds a suffix derived from its state).
    package let flowCookiePrefix: String

    /// The policy for a server reached at `publicURL`.
    package init(publicURL: String) {
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
        flowCookiePrefix = secure ? "__Host-authflow_flow_" : "authflow_flow_"
    }

    /// `Set-Cookie` for a new session lasting `maxAge` seconds.
    package func sessionCookie(_ id: String, maxAge: Int) -> String {
        attributes(name: sessionCookieName, value: id, maxAge: maxAge)
    }

    /// `Set-Cookie` that removes the session cookie.
    package func clearedSessionCookie() -> String {
        attributes(name: sessionCookieName, value: "", maxAge: 0)
    }

    /// The naming and attributes of the flow cookies (the browser-binding kit's `FlowCookieName`).
    package var flowCookieNaming: FlowCookieName { FlowCookieName(secure: secure) }

    /// The name of the flow cookie of the sign-in with `provider` whose state is `state`, begun at `createdAt`
    /// (`FlowCookieName.name(state:provider:createdAt:)`).
    package func flowCookieName(state: String, provider: String, createdAt: Date) -> String {
        flowCookieNaming.name(state: state, provider: provider, createdAt: createdAt)
    }

    /// The start of the flow cookie names of the sign-in with `provider` whose state is `state`
    /// (`FlowCookieName.stem(state:provider:)`).
    package func flowCookieStem(state: String, provider: String) -> String {
        flowCookieNaming.stem(state: state, provider: provider)
    }

    /// The provider and the start time that a flow cookie's name says (`FlowCookieName.parts(_:)`).
    package func flowCookieParts(_ name: String) -> (provider: String, createdAt: Int64)? {
        flowCookieNaming.parts(name)
    }

    /// `Set-Cookie` for a flow cookie living `maxAge` seconds.
    package func flowCookie(name: String, value: String, maxAge: Int) -> String {
        flowCookieNaming.setCookie(name: name, value: value, maxAge: maxAge)
    }

    /// `Set-Cookie` that removes the flow cookie `name`.
    package func clearedFlowCookie(name: String) -> String {
        flowCookieNaming.clearedCookie(name: name)
    }

    /// `name=value; Path=/; Max-Age=…; HttpOnly; SameSite=Lax`, then `; Secure` when cookies are secure: the
    /// session cookie carries the flow cookies' attributes, so both are written by the kit's one writer.
    private func attributes(name: String, value: String, maxAge: Int) -> String {
        flowCookieNaming.setCookie(name: name, value: value, maxAge: maxAge)
    }

    static func host(ofOrigin origin: String) -> Substring {
        let afterScheme = origin.drop { $0 != "/" }.dropFirst(2)
        if afterScheme.hasPrefix("[") {
            return afterScheme.prefix { $0 != "]" } + "]"
        }
        return afterScheme.prefix { $0 != ":" }
    }
}
