import AuthFlow
import AuthFlowHTTP

/// The `X-Auth-*` headers of `GET /auth/check`: which identity values they carry, and how a value that holds what
/// a header may not carry is sent (whole or not at all, or cleaned).
enum IdentityHeaders {
    /// The answer of `GET /auth/check` for a signed-in `session` (before the headers every response gets):
    /// `X-Auth-User`, `X-Auth-Provider`, and when known `X-Auth-Email` (verified only), `X-Auth-Name`,
    /// `X-Auth-Groups` and `X-Auth-Roles` (both ``groupsHeader(_:)``), each as ``identityHeaderValue(_:_:limit:)``
    /// allows. ``AuthCheck/answer(_:narrowing:)`` answers with it on both paths.
    ///
    /// - Throws: ``ServerError`` `internal_error` (500) when the user id or the provider name cannot be sent
    ///   whole: a check that named nobody, or someone else, must not pass.
    static func response(for session: CurrentSession) throws(ServerError) -> HTTPServerResponse {
        guard let user = Self.identityHeaderValue(session.record.userID.rawValue, .whole),
            let provider = Self.identityHeaderValue(session.identity.provider, .whole)
        else { throw Self.unsendableIdentity }
        var response = HTTPServerResponse.empty(status: 202)
        // Room for these fields and the ones every response gets (``SignInServer/respond(to:route:with:)``).
        response.headers.reserveCapacity(11)
        response.headers["X-Auth-User"] = user
        if session.identity.emailVerified, let email = session.identity.email,
            let value = Self.identityHeaderValue(email, .whole)
        {
            response.headers["X-Auth-Email"] = value
        }
        response.headers["X-Auth-Provider"] = provider
        if let name = session.identity.name, let value = Self.identityHeaderValue(name, .cleaned) {
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

    static let unsendableIdentity = ServerError(
        .internalError,
        "expected a user id and a provider name that X-Auth-User and X-Auth-Provider can carry whole (no control, "
            + "line separator or bidirectional control character, at most 256 bytes), found one they cannot",
        status: 500)

    /// The largest identity header value sent, in bytes.
    static var identityHeaderLimit: Int { 256 }

    /// The largest `X-Auth-Groups` value sent, in bytes.
    static var groupsHeaderLimit: Int { 4096 }

    /// What an identity header may carry: the one rule of every `X-Auth-*` header on both check paths. Never a
    /// ``ControlCharacters`` character (C0 with CR, LF and TAB, DEL, C1, U+2028, U+2029, bidirectional controls:
    /// no header splitting, no terminal or log escapes, no reordered text), never leading or trailing spaces
    /// (which a reader strips, altering the value), never empty, at most `limit` UTF-8 bytes. `.whole` answers
    /// `text` itself or `nil`; `.cleaned` drops those characters, cuts at a character boundary and trims, `nil`
    /// when nothing is left.
    static func identityHeaderValue(_ text: String, _ rule: IdentityHeaderRule, limit: Int = identityHeaderLimit)
        -> String?
    {
        switch rule {
        case .whole:
            guard !text.isEmpty, text.utf8.count <= limit, !ControlCharacters.appear(in: text),
                text.trimmingCharacters() == text
            else { return nil }
            return text
        case .cleaned:
            var kept = String.UnicodeScalarView()
            var bytes = 0
            for scalar in text.unicodeScalars where !ControlCharacters.contains(scalar) {
                let size = String(scalar).utf8.count
                guard bytes + size <= limit else { break }
                bytes += size
                kept.append(scalar)
            }
            let value = String(kept).trimmingCharacters()
            return value.isEmpty ? nil : value
        }
    }

    /// `X-Auth-Groups`: the session's groups joined with `,`, each sent whole or not at all
    /// (``identityHeaderValue(_:_:limit:)``, up to ``SessionRecord/maximumGroupBytes``; a group with a comma is
    /// left out too), and groups stop where the value would pass ``groupsHeaderLimit`` bytes. `nil` when none is
    /// left.
    static func groupsHeader(_ groups: [String]) -> String? {
        var value = ""
        for group in groups {
            guard !group.utf8.contains(UInt8(ascii: ",")),
                let whole = identityHeaderValue(group, .whole, limit: SessionRecord.maximumGroupBytes)
            else { continue }
            let added = (value.isEmpty ? 0 : 1) + whole.utf8.count
            guard value.utf8.count + added <= groupsHeaderLimit else { break }
            value += value.isEmpty ? whole : "," + whole
        }
        return value.isEmpty ? nil : value
    }
}

/// How an identity header takes a value that holds what it may not carry.
enum IdentityHeaderRule {
    /// Sent whole or not at all: a cleaned user id, provider, email or group would name someone else.
    case whole
    /// Sent without those characters, cut to the limit and trimmed: a display name.
    case cleaned
}
