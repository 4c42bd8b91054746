import AuthFlowJOSE
package import Foundation

/// The names and attributes of flow cookies: one cookie per sign-in in progress, named
/// `authflow_flow_PROVIDER.DIGEST.SECONDS` (`__Host-authflow_flow_…` when secure), where `DIGEST` is 8
/// base64url characters of a digest of the flow's state (the state never appears in a name) and `SECONDS`
/// when the flow began. The name says the provider and the age, so a start picks the cookies to clear
/// without opening any; it is sealed into the value (associated data), so a renamed cookie does not open.
///
/// Every flow cookie is `Path=/; HttpOnly; SameSite=Lax`, plus `Secure` when ``secure``. The `__Host-` prefix
/// makes browsers refuse the cookie unless it is `Secure`, host-only and `Path=/`, so a sibling subdomain
/// cannot set one.
package struct FlowCookieName: Sendable, Hashable {
    /// Whether the cookies carry `Secure` (and the `__Host-` prefix).
    package let secure: Bool
    /// The start of every flow cookie's name.
    package let prefix: String

    /// The naming for cookies that are `secure` (over https) or not (plain-http development on a loopback host).
    package init(secure: Bool) {
        self.secure = secure
        prefix = secure ? "__Host-authflow_flow_" : "authflow_flow_"
    }

    /// The name of the flow cookie of the sign-in with `provider` whose state is `state`, begun at `createdAt`:
    /// ``stem(state:provider:)`` then the start's time in whole seconds since 1970.
    package func name(state: String, provider: String, createdAt: Date) -> String {
        let seconds = createdAt.timeIntervalSince1970
        let whole = seconds.isFinite ? Int64(max(0, min(seconds.rounded(.down), 9_999_999_999))) : 0
        return stem(state: state, provider: provider) + String(whole)
    }

    /// The name of `record`'s flow cookie.
    package func name(of record: FlowRecord) -> String {
        name(state: record.state, provider: record.provider, createdAt: record.createdAt)
    }

    /// The start of the flow cookie names of the sign-in with `provider` whose state is `state`: the prefix, the
    /// provider, `.`, 8 base64url characters of a digest of the state and `.`.
    package func stem(state: String, provider: String) -> String {
        var input: [UInt8] = []
        input.reserveCapacity(26 + state.utf8.count)
        input.append(contentsOf: "authflow flow-cookie name ".utf8)
        input.append(contentsOf: state.utf8)
        // 8 base64url characters are exactly the digest's first 6 bytes: only those are encoded.
        return prefix + provider + "." + Base64URL.encode(Digest.sha256(input).prefix(6)) + "."
    }

    /// The provider and the start time (seconds since 1970) that a flow cookie's name says, or `nil` when
    /// `name` is not of ``name(state:provider:createdAt:)``'s form. Nothing of it is trusted until the cookie
    /// opens: a start only uses it to choose which cookies to clear.
    package func parts(_ name: String) -> (provider: String, createdAt: Int64)? {
        let skip = prefix.utf8.count
        guard name.hasPrefix(prefix) else { return nil }
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

    /// `Set-Cookie` for the flow cookie `name` holding `value` for `maxAge` seconds:
    /// `name=value; Path=/; Max-Age=…; HttpOnly; SameSite=Lax`, then `; Secure` when ``secure``.
    package func setCookie(name: String, value: String, maxAge: Int) -> String {
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

    /// `Set-Cookie` that removes the flow cookie `name`.
    package func clearedCookie(name: String) -> String {
        setCookie(name: name, value: "", maxAge: 0)
    }
}
