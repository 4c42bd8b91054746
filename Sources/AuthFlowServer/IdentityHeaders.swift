import AuthFlow
import AuthFlowHTTP

extension SessionRoutes {
    /// The answer of `GET /auth/check` for a signed-in `session` (before the headers every response gets):
    /// `X-Auth-User`, `X-Auth-Provider`, and when known `X-Auth-Email` (verified only), `X-Auth-Name`,
    /// `X-Auth-Groups` and `X-Auth-Roles` (both ``ServerRoute/groupsHeader(_:)``), each without control characters
    /// and bounded.
    func checkResponse(_ session: CurrentSession) -> HTTPServerResponse {
        var response = HTTPServerResponse.empty(status: 202)
        // Room for these fields and the ones every response gets (``SignInServer/respond(to:route:with:)``).
        response.headers.reserveCapacity(11)
        response.headers["X-Auth-User"] = session.record.userID.rawValue
        // An email is sent whole or not at all: a shortened or cleaned one would name someone else.
        if session.identity.emailVerified, let email = session.identity.email, !Self.hasControlCharacter(email),
            email.utf8.count <= Self.identityHeaderLimit
        {
            response.headers["X-Auth-Email"] = email
        }
        if let provider = Self.headerValue(session.identity.provider) {
            response.headers["X-Auth-Provider"] = provider
        }
        if let name = session.identity.name, let value = Self.headerValue(name) {
            response.headers["X-Auth-Name"] = value
        }
        if let groups = Self.groupsHeader(session.record.groups) {
            response.headers["X-Auth-Groups"] = groups
        }
        if let roles = Self.groupsHeader(session.record.roles) {
            response.headers["X-Auth-Roles"] = roles
        }
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}

extension ServerRoute {
    /// The largest identity header value sent, in bytes.
    static var identityHeaderLimit: Int { 256 }

    /// The largest `X-Auth-Groups` value sent, in bytes.
    static var groupsHeaderLimit: Int { 4096 }

    /// `X-Auth-Groups`: the session's groups joined with `,`, each sent whole or not at all (a shortened or
    /// cleaned name could be another group's): a name with a comma, a control character (C0, DEL, C1) or
    /// leading or trailing spaces is left out, and groups stop where the value would pass ``groupsHeaderLimit``
    /// bytes. `nil` when none is left.
    static func groupsHeader(_ groups: [String]) -> String? {
        var value = ""
        for group in groups {
            guard !group.isEmpty, group.utf8.count <= SessionRecord.maximumGroupBytes,
                !group.unicodeScalars.contains(where: {
                    $0 == "," || $0.value < 0x20 || ($0.value >= 0x7F && $0.value < 0xA0)
                }),
                group.trimmingCharacters() == group
            else { continue }
            let added = (value.isEmpty ? 0 : 1) + group.utf8.count
            guard value.utf8.count + added <= groupsHeaderLimit else { break }
            value += value.isEmpty ? group : "," + group
        }
        return value.isEmpty ? nil : value
    }

    /// `text` without control characters (C0, DEL, C1: no CR or LF can split a header), cut to at most `limit`
    /// UTF-8 bytes (``identityHeaderLimit`` by default) at a character boundary; `nil` when nothing is left.
    static func headerValue(_ text: String, limit: Int = 256) -> String? {
        var kept = String.UnicodeScalarView()
        var bytes = 0
        for scalar in text.unicodeScalars where !(scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value < 0xA0))
        {
            let size = String(scalar).utf8.count
            guard bytes + size <= limit else { break }
            bytes += size
            kept.append(scalar)
        }
        let value = String(kept).trimmingCharacters()
        return value.isEmpty ? nil : value
    }

    /// Whether `text` has a C0 control character or DEL (never sent in a header), over its contiguous UTF-8 bytes.
    static func hasControlCharacter(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in bytes.contains { $0 < 0x20 || $0 == 0x7F } }
    }
}
