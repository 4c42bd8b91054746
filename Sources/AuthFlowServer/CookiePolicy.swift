import AuthFlowJOSE
public import Foundation

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
public struct CookiePolicy: Sendable, Hashable {

    /// Whether cookies carry `Secure`.
    public let secure: Bool
    /// The session cookie's name.
    public let sessionCookieName: String
    /// The start of every flow cookie's name (a flow adds a suffix derived from its state).
    public let flowCookiePrefix: String

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
        flowCookiePrefix = secure ? "__Host-authflow_flow_" : "authflow_flow_"
    }

    /// `Set-Cookie` for a new session lasting `maxAge` seconds.
    public func sessionCookie(_ id: String, maxAge: Int) -> String {
        attributes(name: sessionCookieName, value: id, maxAge: maxAge)
    }

    /// `Set-Cookie` that removes the session cookie.
    public func clearedSessionCookie() -> String {
        attributes(name: sessionCookieName, value: "", maxAge: 0)
    }

    /// The name of the flow cookie of the sign-in with `provider` whose state is `state`, begun at `createdAt`:
    /// ``flowCookieStem(state:provider:)`` then the start's time in whole seconds since 1970. The name says
    /// the provider and the age, so a start picks the flow cookies to clear without opening any; the name is
    /// sealed into the value (associated data), so a renamed cookie does not open.
    public func flowCookieName(state: String, provider: String, createdAt: Date) -> String {
        let seconds = createdAt.timeIntervalSince1970
        let whole = seconds.isFinite ? Int64(max(0, min(seconds.rounded(.down), 9_999_999_999))) : 0
        return flowCookieStem(state: state, provider: provider) + String(whole)
    }

    /// The start of the flow cookie names of the sign-in with `provider` whose state is `state`: the prefix, the
    /// provider, `.`, 8 base64url characters of a digest of the state (the state itself never appears in a
    /// cookie name) and `.`.
    public func flowCookieStem(state: String, provider: String) -> String {
        var input: [UInt8] = []
        input.reserveCapacity(26 + state.utf8.count)
        input.append(contentsOf: "authflow flow-cookie name ".utf8)
        input.append(contentsOf: state.utf8)
        // 8 base64url characters are exactly the digest's first 6 bytes: only those are encoded.
        return flowCookiePrefix + provider + "." + Base64URL.encode(Digest.sha256(input).prefix(6)) + "."
    }

    /// The provider and the start time (seconds since 1970) that a flow cookie's name says, or `nil` when
    /// `name` is not a flow cookie name of ``flowCookieName(state:provider:createdAt:)``'s form. Nothing of it
    /// is trusted until the cookie opens: a start only uses it to choose which cookies to clear.
    public func flowCookieParts(_ name: String) -> (provider: String, createdAt: Int64)? {
        let skip = flowCookiePrefix.utf8.count
        guard name.hasPrefix(flowCookiePrefix) else { return nil }
        var name = name
        // PROVIDER.XXXXXXXX.SECONDS on the bytes: the digest has no `.`, a provider name (`[a-z0-9_-]`) none either.
        return name.withUTF8 { bytes -> (provider: String, createdAt: Int64)? in
            let dot = UInt8(ascii: ".")
            guard let first = bytes[skip...].firstIndex(of: dot), first > skip, first + 9 < bytes.count,
                bytes[first + 9] == dot, !bytes[(first + 1)..<(first + 9)].contains(dot)
            else { return nil }
            let digits = bytes[(first + 10)...]
            guard (1...10).contains(digits.count) else { return nil }
            var seconds: Int64 = 0
            for byte in digits {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                seconds = seconds * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return (String(decoding: UnsafeBufferPointer(rebasing: bytes[skip..<first]), as: UTF8.self), seconds)
        }
    }

    /// `Set-Cookie` for a flow cookie living `maxAge` seconds.
    public func flowCookie(name: String, value: String, maxAge: Int) -> String {
        attributes(name: name, value: value, maxAge: maxAge)
    }

    /// `Set-Cookie` that removes the flow cookie `name`.
    public func clearedFlowCookie(name: String) -> String {
        attributes(name: name, value: "", maxAge: 0)
    }

    /// `name=value; Path=/; Max-Age=…; HttpOnly; SameSite=Lax`, then `; Secure` when cookies are secure, written
    /// into one string of the right size (a flow cookie's value is a few hundred bytes).
    private func attributes(name: String, value: String, maxAge: Int) -> String {
        let age = String(maxAge)
        var text = ""
        text.reserveCapacity(name.utf8.count + value.utf8.count + age.utf8.count + 56)
        text += name
        text += "="
        text += value
        text += "; Path=/; Max-Age="
        text += age
        text += secure ? "; HttpOnly; SameSite=Lax; Secure" : "; HttpOnly; SameSite=Lax"
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
