import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// How a request presents its session: the session cookie, or `Authorization: Bearer` (native apps).
enum SessionCredential: Sendable, Equatable {
    case cookie(String)
    case bearer(String)

    /// The session id (cookie value or bearer token).
    var id: String {
        switch self {
        case .cookie(let id), .bearer(let id): id
        }
    }

    /// The kind of session the credential may open.
    var kind: SessionKind {
        switch self {
        case .cookie: .cookie
        case .bearer: .bearer
        }
    }
}

/// The signed-in browser or app of a request, checked against both stores.
struct CurrentSession: Sendable {
    /// The session cookie's value or the bearer token.
    let id: String
    /// The stored session.
    let record: SessionRecord
    /// The identity the session was signed in with, as stored now.
    let identity: LinkedIdentity
}

extension SignInServer {
    /// The session of `request`, or `nil` when it has no cookie or bearer token, the session is unknown, expired
    /// or of the other kind, or its identity was removed, moved to another user or disabled since.
    ///
    /// - Parameter cached: whether a session found valid a moment ago (``SessionCache``) may answer; only
    ///   for the read-only routes.
    /// - Throws: ``ServerError`` `store_unavailable` when a store fails, `duplicate_cookie` when the request
    ///   carries the session cookie twice, `ambiguous_credentials` with both a cookie and a bearer token.
    func currentSession(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError)
        -> CurrentSession?
    {
        guard let credential = try sessionCredential(request) else { return nil }
        let id = credential.id
        var session: CurrentSession?
        if cached {
            // Concurrent requests for one session share the store read (see `SessionCache`).
            session = try await sessionCache.session(
                id: id, now: { [clock] in clock.now() },
                read: { () async throws(ServerError) -> CurrentSession? in try await readSession(id: id) })
            // A session idle too long, or whose last use is due to be written, is asked of the stores.
            if let found = session, idleState(found.record, now: clock.now()) != .fresh {
                session = try await readSession(id: id)
            }
        } else {
            session = try await readSession(id: id)
        }
        // A token opens only its own kind of session: a bearer token is no cookie, and the reverse.
        guard let session, session.record.kind == credential.kind else { return nil }
        return session
    }

    /// The session `id` as both stores hold it now (of either kind), or `nil` when it is unknown, expired, or its
    /// identity was removed, moved to another user or disabled since.
    ///
    /// - Throws: ``ServerError`` `store_unavailable` when a store fails.
    private func readSession(id: String) async throws(ServerError) -> CurrentSession? {
        do throws(StoreError) {
            guard var record = try await stores.sessions.session(id: id) else { return nil }
            let now = clock.now()
            switch idleState(record, now: now) {
            case .fresh:
                break
            case .due:
                try await stores.sessions.touchSession(id: id, lastUsedAt: now)
                record = record.used(at: now)
            case .idle:
                return nil
            }
            guard let identity = try await stores.accounts.identity(record.identity),
                identity.userID == record.userID, !identity.isDisabled
            else { return nil }
            return CurrentSession(id: id, record: record, identity: identity)
        } catch {
            throw ServerError(error, while: "look up the session", store: "sessions")
        }
    }

    /// The session of `request`.
    ///
    /// - Throws: ``ServerError`` `not_signed_in` (401) without one.
    func requireSession(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError)
        -> CurrentSession
    {
        guard let session = try await currentSession(request, cached: cached) else {
            throw ServerError(.notSignedIn, "expected a signed-in session, found none", status: 401)
        }
        return session
    }

    /// `GET /auth/session`: the signed-in identity with exactly the DESIGN §3 keys, or 401.
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
    /// without a session, 403 `forbidden` for a signed-in user that `server.access` or the query refuses.
    ///
    /// The query narrows `server.access`, never widens it: `email_domain`, `provider`, `group` (each repeated or a
    /// comma list, any of them matching) apply together with the configured rules.
    func check(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let session = try await requireSession(request, cached: true)
        let narrowing = try Self.accessQuery(request)
        guard allowsAccess(session, narrowing: narrowing) else {
            throw ServerError(
                .forbidden, "this account may not use this location: it does not match its access rules", status: 403)
        }
        return checkResponse(session)
    }

    /// Whether `session` satisfies `server.access` and, when given, the rules of the request's query.
    func allowsAccess(_ session: CurrentSession, narrowing: AccessRules?) -> Bool {
        let email = session.identity.emailVerified ? session.identity.email : nil
        let provider = session.identity.provider
        let groups = session.record.groups
        guard options.access.allows(provider: provider, verifiedEmail: email, groups: groups) else { return false }
        return narrowing?.allows(provider: provider, verifiedEmail: email, groups: groups) ?? true
    }

    /// The rules `/auth/check?email_domain=…&provider=…&group=…` asks for; `nil` without a query.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for another parameter (a rule this server does not know
    ///   must not pass silently), an empty value, or a domain that is not an ASCII host name.
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
            case "group":
                rules.groups += items
            default:
                throw ServerError(
                    .invalidRequest,
                    "expected email_domain, provider or group in the query of /auth/check, found "
                        + JSONValue.string(String(name.prefix(32))).serialized(), status: 400)
            }
        }
        return rules
    }

    /// The largest identity header value sent, in bytes.
    static let identityHeaderLimit = 256

    /// The answer of `GET /auth/check` for a signed-in `session` (before the headers every response gets):
    /// `X-Auth-User`, `X-Auth-Provider`, and when known `X-Auth-Email` (verified only), `X-Auth-Name` and
    /// `X-Auth-Groups` (``groupsHeader(_:)``), each without control characters and bounded.
    func checkResponse(_ session: CurrentSession) -> HTTPServerResponse {
        var response = HTTPServerResponse.empty(status: 202)
        // Room for these fields and the ones every response gets (``respond(to:segments:with:)``).
        response.headers.reserveCapacity(10)
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
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// The largest `X-Auth-Groups` value sent, in bytes.
    static let groupsHeaderLimit = 4096

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
    /// UTF-8 bytes at a character boundary; `nil` when nothing is left.
    static func headerValue(_ text: String, limit: Int = identityHeaderLimit) -> String? {
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

    /// `POST /auth/logout`: ends the session server-side and clears the cookie; 204, or 302 to a valid
    /// `return_to` (query or form field). With `everywhere=1` (query or form field) it ends every session of the
    /// signed-in user (``endEverySession(of:)``).
    ///
    /// With `provider_logout=1` (query or form field) and a cookie session of a provider with an end-session
    /// endpoint, the session ends first, then the answer is 303 to that endpoint (OpenID Connect RP-Initiated
    /// Logout 1.0) with `id_token_hint`, `client_id`, `post_logout_redirect_uri` and a sealed `state` carrying
    /// the `return_to`, which `GET /auth/logged-out` follows. Without such an endpoint: the local logout only.
    ///
    /// With `Authorization: Bearer` it ends that bearer session (of its own kind only) and sets no cookie.
    func logout(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        try checkOrigin(request)
        let returnTo = try returnToPolicy.validate(try Self.returnToParameter(request))
        let atProvider = try Self.providerLogoutParameter(request)
        let everywhere = try Self.everywhereParameter(request)
        let credential = try sessionCredential(request)
        var ended: SessionRecord?
        if let credential {
            noteChanged(session: credential.id)
            do throws(StoreError) {
                // Only a session of the credential's kind ends: a bearer token sent as a cookie ends nothing.
                if let record = try await stores.sessions.session(id: credential.id), record.kind == credential.kind {
                    if everywhere, idleState(record, now: clock.now()) != .idle {
                        try await endEverySession(of: record.userID)
                    } else if try await stores.sessions.deleteSession(id: credential.id) {
                        logger.log(.info, "signed out", metadata: ["session": record.kind.rawValue])
                    }
                    ended = record
                }
            } catch {
                throw ServerError(error, while: "end the session", store: "sessions")
            }
        }
        var response: HTTPServerResponse = returnTo.map { .redirect(to: $0, status: 302) } ?? .empty(status: 204)
        if atProvider, case .cookie(let id) = credential, let ended,
            let url = try providerLogoutURL(request, sessionID: id, record: ended, returnTo: returnTo)
        {
            response = .redirect(to: url, status: 303)
        }
        if case .bearer = credential {
        } else {
            response.addCookie(cookies.clearedSessionCookie())
            if let providerLogout { response.addCookie(providerLogout.clearedHintCookie()) }
        }
        return response
    }

    /// The provider's end-session URL for the ended session `record`, or `nil` when its provider has no
    /// end-session endpoint (then the logout is local only).
    func providerLogoutURL(
        _ request: HTTPServerRequest, sessionID: String, record: SessionRecord, returnTo: String?
    ) throws(ServerError) -> String? {
        guard let providerLogout, let provider = providers[record.identity.provider],
            let endpoint = provider.endpoints.endSession, !endpoint.isEmpty
        else { return nil }
        let state: String
        do throws(JOSEError) {
            state = try providerLogout.state(provider: provider.name, returnTo: returnTo ?? "/", now: clock.now())
        } catch {
            throw ServerError(
                .init(rawValue: "internal_error"), "expected to seal the logout state, found \(error.code)", status: 500
            )
        }
        logger.log(.info, "provider logout", metadata: ["provider": provider.name])
        return ProviderLogout.endSessionURL(
            endpoint, idToken: providerLogout.idToken(in: request, sessionID: sessionID), clientID: provider.clientID,
            postLogoutRedirectURI: provider.settings.postLogoutRedirectURI
                ?? options.publicURL + options.pathPrefix + "/logged-out",
            state: state)
    }

    /// `GET /auth/logged-out?state=…`: where the provider sends the browser after a provider logout; 303 to the
    /// `return_to` the logout carried (checked again against `server.allowed_return_to`), `/` without one.
    ///
    /// Refused (400, an HTML page for a browser): no or several `state` (`invalid_logout_state`), a state not
    /// sealed here (`invalid_logout_state`), older than 10 minutes (`logout_state_expired`).
    func loggedOut(_ request: HTTPServerRequest) throws(ServerError) -> HTTPServerResponse {
        let states = request.query.filter { $0.0 == "state" }.map(\.1)
        guard let providerLogout, states.count == 1 else {
            throw ServerError(
                .invalidLogoutState,
                "expected one state parameter (sent back by the provider after a logout), found \(states.count)",
                status: 400)
        }
        let opened = try providerLogout.open(states[0], now: clock.now())
        let returnTo = try returnToPolicy.validate(opened.returnTo) ?? "/"
        var response = HTTPServerResponse.redirect(to: returnTo, status: 303)
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// `provider_logout` of the query or form: `1`/`true` asks for the provider logout, `0`/`false` or absent
    /// does not.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for another value or more than one.
    static func providerLogoutParameter(_ request: HTTPServerRequest) throws(ServerError) -> Bool {
        var values = request.query.filter { $0.0 == "provider_logout" }.map(\.1)
        if request.method == "POST", let fields = try? request.formValues("provider_logout") { values += fields }
        guard values.count <= 1 else {
            throw ServerError(
                .invalidRequest, "expected at most one provider_logout, found \(values.count)", status: 400)
        }
        switch values.first {
        case nil, "0", "false": return false
        case "1", "true": return true
        default:
            throw ServerError(
                .invalidRequest, "expected provider_logout=1 (or 0), found another value", status: 400)
        }
    }

    /// The session credential of `request`: its session cookie or its `Authorization: Bearer` token.
    ///
    /// - Throws: ``ServerError`` `ambiguous_credentials` (400) when it carries both, `duplicate_cookie` when it
    ///   carries the session cookie twice.
    func sessionCredential(_ request: HTTPServerRequest) throws(ServerError) -> SessionCredential? {
        let cookie = try sessionCookieValue(request)
        let bearer = Self.bearerToken(request)
        switch (cookie, bearer) {
        case (let cookie?, nil): return .cookie(cookie)
        case (nil, let bearer?): return .bearer(bearer)
        case (nil, nil): return nil
        case (.some, .some):
            throw ServerError(
                .ambiguousCredentials,
                "expected one session credential, a session cookie or an Authorization bearer token, found both",
                status: 400)
        }
    }

    /// The token of an `Authorization: Bearer TOKEN` header (scheme case-insensitive, RFC 6750); `nil` without
    /// one, for another scheme, or for a token that is empty or longer than 128 characters.
    static func bearerToken(_ request: HTTPServerRequest) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1]).trimmingCharacters()
        guard !token.isEmpty, token.utf8.count <= 128 else { return nil }
        return token
    }

    /// The same-origin check of state-changing routes, for cookie requests only: a request carrying a bearer
    /// token sends no ambient credential (a cross-site page cannot set `Authorization` without a preflight).
    func checkOrigin(_ request: HTTPServerRequest) throws(ServerError) {
        guard Self.bearerToken(request) == nil else { return }
        try originCheck.check(request)
    }

    /// `GET /healthz`: 200 `{"status":"ok"}` when the account, session and flow stores answer; otherwise 503
    /// `{"status":"unavailable","store":NAME,"backend":KIND,"error":CODE}` naming the first store that does not
    /// and the kind of server behind it (`memory`, `sqlite`, `postgres`, `redis`; `custom` for a store that
    /// does not say).
    func health() async -> HTTPServerResponse {
        func unavailable(_ store: String, _ backend: any Sendable, _ code: String) -> HTTPServerResponse {
            ResponseFactory.json(
                .object([
                    "status": .string("unavailable"), "store": .string(store),
                    "backend": .string((backend as? any StoreBackendNaming)?.backendName ?? "custom"),
                    "error": .string(code),
                ]),
                status: 503)
        }
        do throws(StoreError) {
            try await stores.accounts.checkHealth()
        } catch {
            return unavailable("accounts", stores.accounts, error.code.rawValue)
        }
        do throws(StoreError) {
            try await stores.sessions.checkHealth()
        } catch {
            return unavailable("sessions", stores.sessions, error.code.rawValue)
        }
        do throws(FlowStoreError) {
            try await stores.flows.checkHealth()
        } catch {
            return unavailable("flows", stores.flows, error.code.rawValue)
        }
        return ResponseFactory.json(.object(["status": .string("ok")]))
    }

    /// Starts a new session for `identity` (a fresh random id: no fixation) and returns its cookie;
    /// `providerSessionID` is the id_token's `sid`, kept for back-channel logout.
    func createSession(
        for identity: LinkedIdentity, providerSessionID: String? = nil, groups: [String] = [], agent: String? = nil
    ) async throws(ServerError) -> (id: String, cookie: String) {
        let (id, _) = try await storeSession(
            for: identity, kind: .cookie, providerSessionID: providerSessionID, groups: groups, agent: agent)
        return (id, cookies.sessionCookie(id, maxAge: Int(options.sessionTTL.rounded(.down))))
    }

    /// Stores a new session of `kind` for `identity` under a fresh random id (32 bytes, base64url): `session_ttl`
    /// for a cookie, `native_session_ttl` for a bearer session. Returns the id and the record.
    func storeSession(
        for identity: LinkedIdentity, kind: SessionKind, providerSessionID: String?, groups: [String] = [],
        agent: String? = nil
    ) async throws(ServerError) -> (id: String, record: SessionRecord) {
        let id = Base64URL.encode(random.bytes(32))
        let now = clock.now()
        let ttl = kind == .bearer ? options.nativeSessionTTL : options.sessionTTL
        let record = SessionRecord(
            userID: identity.userID, provider: identity.provider, subject: identity.subject, createdAt: now,
            expiresAt: now.addingTimeInterval(ttl), providerSessionID: providerSessionID, kind: kind, groups: groups,
            agent: agent)
        do throws(StoreError) {
            try await stores.sessions.createSession(id: id, record: record)
        } catch {
            throw ServerError(error, while: "create the session", store: "sessions")
        }
        return (id, record)
    }

    /// The single `return_to` of the query or, for a form POST, the body (only that field is decoded; the
    /// body is bounded by the route's limit, ``formBodyLimit``).
    ///
    /// - Throws: ``ServerError`` `invalid_return_to` when it is given more than once.
    static func returnToParameter(_ request: HTTPServerRequest) throws(ServerError) -> String? {
        var values = request.query.filter { $0.0 == "return_to" }.map(\.1)
        if request.method == "POST", let fields = try? request.formValues("return_to") {
            values += fields
        }
        guard values.count <= 1 else {
            throw ServerError(.invalidReturnTo, "expected at most one return_to, found \(values.count)", status: 400)
        }
        return values.first
    }

    /// RFC 3339 UTC with seconds, e.g. `2025-01-31T08:00:00Z`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// Base64url SHA-256 of a session id (how the trace log keys sessions).
    static func digest(_ id: String) -> String {
        Base64URL.encode(Digest.sha256(Array(id.utf8)))
    }
}
