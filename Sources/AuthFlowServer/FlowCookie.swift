import AuthFlowJOSE

/// The value of the flow cookie: a random browser-binding value MAC'd with a key derived from
/// `server.secret`, so a cookie the server did not issue is ignored.
///
/// Format: `v1.<binding>.<mac>` where `binding` is 32 random bytes and `mac` is
/// HMAC-SHA-256(key, "authflow-flow-cookie.v1." + binding), both base64url. The binding (not the cookie)
/// is what ``AuthFlow/SignIn`` hashes into the flow record; one binding serves every sign-in the browser
/// starts while the cookie lives, so two tabs signing in at once do not break each other.
struct FlowCookie: Sendable {
    let key: [UInt8]

    init(secret: [UInt8]) {
        key = Digest.hmacSHA256(key: secret, message: Array("authflow flow-cookie key v1".utf8))
    }

    /// The cookie value for `binding`.
    func seal(_ binding: String) -> String {
        "v1.\(binding).\(Base64URL.encode(mac(binding)))"
    }

    /// The binding inside `cookie`, or `nil` when the cookie is malformed or its MAC does not verify.
    func open(_ cookie: String?) -> String? {
        guard let cookie, cookie.utf8.count <= 256 else { return nil }
        let parts = cookie.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "v1", !parts[1].isEmpty,
            let presented = try? Base64URL.decode(parts[2])
        else { return nil }
        let binding = String(parts[1])
        guard (try? Base64URL.decode(binding))?.count == 32 else { return nil }
        return ConstantTime.equals(presented, mac(binding)) ? binding : nil
    }

    private func mac(_ binding: String) -> [UInt8] {
        Digest.hmacSHA256(key: key, message: Array("authflow-flow-cookie.v1.\(binding)".utf8))
    }
}
