import AuthFlow
import AuthFlowHTTP

/// `GET /auth/session` and `GET /auth/check`: who is signed in, for the app and for nginx `auth_request`.
struct SessionRoutes: ServerRoute {
    let context: ServerContext

    /// `GET /auth/session`: the signed-in identity with exactly the keys of docs/server.md ("Routes"), or 401.
    func sessionInfo(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await requireSession(request, cached: true)
        return ResponseFactory.json(Self.sessionJSON(session))
    }

    static func sessionJSON(_ session: CurrentSession) -> JSONValue {
        let identity = session.identity
        let email: JSONValue = identity.emailVerified ? identity.email.map(JSONValue.string) ?? .null : .null
        return .object([
            "user_id": .string(session.record.userID.rawValue),
            "provider": .string(identity.provider),
            "subject": .string(identity.subject),
            "email": email,
            "email_verified": .bool(identity.emailVerified && identity.email != nil),
            "name": identity.name.map(JSONValue.string) ?? .null,
            "expires_at": .string(Self.timestamp(session.record.expiresAt)),
        ])
    }

    /// `GET /auth/check` for nginx `auth_request`: 202 with the identity headers (``checkResponse(_:)``), 401
    /// without a session, 403 `forbidden` for a signed-in user that `server.access` or the query refuses, 500
    /// `internal_error` for a stored user id or provider name that no header can carry whole.
    ///
    /// The query narrows `server.access`, never widens it: `email_domain`, `provider`, `group`, `role` (each
    /// repeated or a comma list, any of them matching; `group` and `role` written as the configured rules are)
    /// apply together with the configured rules.
    func check(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await requireSession(request, cached: true)
        let narrowing = try Self.accessQuery(request)
        guard allowsAccess(session, narrowing: narrowing) else {
            throw ServerError(
                .forbidden, "this account may not use this location: it does not match its access rules", status: 403)
        }
        return try checkResponse(session)
    }

    /// Whether `session` satisfies `server.access` and, when given, the rules of the request's query.
    func allowsAccess(_ session: CurrentSession, narrowing: AccessRules?) -> Bool {
        let email = session.identity.emailVerified ? session.identity.email : nil
        let record = session.record
        for rules in [options.access, narrowing] {
            guard let rules else { continue }
            guard
                rules.allows(
                    provider: record.provider, tenant: record.tenant, verifiedEmail: email, groups: record.groups,
                    roles: record.roles)
            else { return false }
        }
        return true
    }

    /// The rules `/auth/check?email_domain=…&provider=…&group=…&role=…` asks for; `nil` without a query.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for another parameter (a rule this server does not know
    ///   must not pass silently), an empty value, a domain that is not an ASCII host name, or a group or role rule
    ///   that does not parse (``MembershipRule/init(parsing:)``).
    static func accessQuery(_ request: HTTPServerRequest) throws(ServerError) -> AccessRules? {
        guard !request.query.isEmpty else { return nil }
        var rules = AccessRules()
        for (name, value) in request.query {
            let items = value.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters()
            }
            guard !items.contains(where: \.isEmpty) else {
                throw ServerError(
                    .invalidRequest, "expected a non-empty value for \(name.prefix(32)) in the query of /auth/check",
                    status: 400)
            }
            switch name {
            case "email_domain":
                for item in items {
                    guard let domain = AccessRules.normalizedDomain(item) else {
                        throw ServerError(
                            .invalidRequest,
                            "expected an ASCII domain like example.com (IDNA in its xn-- form) for email_domain, "
                                + "found \(JSONValue.string(String(item.prefix(64))).serialized())", status: 400)
                    }
                    rules.emailDomains.append(domain)
                }
            case "provider":
                rules.providers += items
            case "group", "role":
                for item in items where MembershipRule(parsing: item) == nil {
                    throw ServerError(
                        .invalidRequest,
                        "expected NAME, PROVIDER:NAME, PROVIDER/TENANT:NAME or *:NAME for \(name), found "
                            + JSONValue.string(String(item.prefix(64))).serialized(), status: 400)
                }
                if name == "group" { rules.groups += items } else { rules.roles += items }
            default:
                throw ServerError(
                    .invalidRequest,
                    "expected email_domain, provider, group or role in the query of /auth/check, found "
                        + JSONValue.string(String(name.prefix(32))).serialized(), status: 400)
            }
        }
        return rules
    }
}
