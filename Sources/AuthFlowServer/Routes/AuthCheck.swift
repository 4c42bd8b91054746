import AuthFlow
import AuthFlowHTTP

/// `GET /auth/check` decided in one place: whether a signed-in session may pass `server.access` (and the rules its
/// query adds), and the answer with its identity headers. The immediate path (``SignInServer/handleAtOnce(_:)``,
/// a cached cookie session and no query) and the task path (``SessionRoutes/check(_:)``) both call
/// ``answer(_:narrowing:)``. Built once per server.
final class AuthCheck: Sendable {
    /// `server.access`.
    let access: AccessRules
    /// The time step-up checks (`max_age`) measure against.
    let clock: any WallClock
    /// `server.public_url` + `server.path_prefix`: where the step-up answer's sign-in URL starts.
    let loginBase: String

    init(access: AccessRules, clock: any WallClock = SystemClock(), loginBase: String = "") {
        self.access = access
        self.clock = clock
        self.loginBase = loginBase
    }

    /// `/auth/check`'s answer for `session`: 202 with the identity headers (``IdentityHeaders/response(for:)``).
    ///
    /// The query's rules (`narrowing`) narrow `server.access`, never widen it: `email_domain`, `provider`, `group`,
    /// `role` (each repeated or a comma list, any of them matching; `group` and `role` written as the configured
    /// rules are) apply together with the configured rules.
    ///
    /// - Throws: ``ServerError`` `forbidden` (403) for a user that `server.access` or the query refuses,
    ///   `internal_error` (500) for a stored user id or provider name that no header can carry whole.
    func answer(
        _ session: CurrentSession, narrowing: AccessRules?, stepUp: StepUpRequirement? = nil,
        returnTo: String? = nil, browser: Bool = false
    ) throws(ServerError) -> HTTPServerResponse {
        guard allows(session, narrowing: narrowing) else {
            throw ServerError(
                .forbidden, "this account may not use this location: it does not match its access rules", status: 403)
        }
        if let stepUp, !stepUp.isSatisfied(by: session.record, now: clock.now()) {
            return stepUpAnswer(session, requirement: stepUp, returnTo: returnTo, browser: browser)
        }
        return try IdentityHeaders.response(for: session)
    }

    /// ``answer(_:narrowing:stepUp:returnTo:browser:)`` for `session` asked without a query, with the headers every
    /// response gets already in place (``ResponseFactory/secure(_:)``), or `nil` when it is no 202 (a refusal, an
    /// identity no header can carry whole): what a session cache entry keeps, so the immediate path
    /// (``SignInServer/handleAtOnce(_:)``) only adds the request's id. It depends on the session and
    /// `server.access` alone, both fixed for the entry's life.
    func preparedAnswer(_ session: CurrentSession) -> HTTPServerResponse? {
        guard var response = try? answer(session, narrowing: nil) else { return nil }
        // Room for the security headers and the request id, so neither regrows the fields.
        response.headers.reserveCapacity(response.headers.count + ResponseFactory.securityHeaders.count + 1)
        ResponseFactory.secure(&response)
        return response
    }

    /// Whether `session` satisfies `server.access` and, when given, the rules of the request's query.
    func allows(_ session: CurrentSession, narrowing: AccessRules?) -> Bool {
        let email = session.identity.emailVerified ? session.identity.email : nil
        let record = session.record
        guard
            access.allows(
                provider: record.provider, tenant: record.tenant, verifiedEmail: email, groups: record.groups,
                roles: record.roles)
        else { return false }
        guard let narrowing else { return true }
        return narrowing.allows(
            provider: record.provider, tenant: record.tenant, verifiedEmail: email, groups: record.groups,
            roles: record.roles)
    }

    /// The rules `/auth/check?email_domain=…&provider=…&group=…&role=…` asks for; `nil` without a query.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for another parameter (a rule this server does not know
    ///   must not pass silently), an empty value, a domain that is not an ASCII host name, or a group or role rule
    ///   that does not parse (``MembershipRule/init(parsing:)``).
    static func accessQuery(_ request: HTTPServerRequest) throws(ServerError) -> AccessRules? {
        try checkQuery(request).rules
    }

    /// The access rules and the step-up requirement (`acr`, `max_age`) of `/auth/check`'s query; `nil`s without.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) as ``accessQuery(_:)`` and ``stepUp(from:in:repeatable:)``.
    static func checkQuery(_ request: HTTPServerRequest) throws(ServerError) -> (
        rules: AccessRules?, stepUp: StepUpRequirement?
    ) {
        guard !request.query.isEmpty else { return (nil, nil) }
        let place = "the query of /auth/check"
        let (pairs, stepUp) = try stepUp(from: request.query, in: place, repeatable: true)
        return (pairs.isEmpty && stepUp != nil ? nil : try rules(pairs, in: place, repeatable: true), stepUp)
    }

    /// The rules `pairs` (`email_domain`, `provider`, `group`, `role`, each value one item or a comma list)
    /// ask for, read from `place` (named in the errors). With `repeatable` false a name given twice is refused
    /// rather than joined, so a pair appended after the operator's cannot add an alternative to theirs.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for another name, a repeated one (unless `repeatable`),
    ///   an empty value, a domain that is not an ASCII host name, or a group or role rule that does not parse.
    static func rules(_ pairs: [(String, String)], in place: String, repeatable: Bool) throws(ServerError)
        -> AccessRules
    {
        var rules = AccessRules()
        var seen: Set<String> = []
        for (name, value) in pairs {
            guard repeatable || seen.insert(name).inserted else {
                throw ServerError(
                    .invalidRequest,
                    "expected each rule once in \(place), found \(JSONValue.string(String(name.prefix(32))).serialized())"
                        + " twice (write one comma list)", status: 400)
            }
            let items = value.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters()
            }
            guard !items.contains(where: \.isEmpty) else {
                throw ServerError(
                    .invalidRequest, "expected a non-empty value for \(name.prefix(32)) in \(place)", status: 400)
            }
            try add(items, named: name, in: place, to: &rules)
        }
        return rules
    }

    /// Adds the rule `name` with `items` to `rules`.
    private static func add(_ items: [String], named name: String, in place: String, to rules: inout AccessRules)
        throws(ServerError)
    {
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
                "expected email_domain, provider, group, role, acr or max_age in \(place), found "
                    + JSONValue.string(String(name.prefix(32))).serialized(), status: 400)
        }
    }
}
