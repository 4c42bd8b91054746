import AuthFlow
import AuthFlowHTTP

/// A route handler that reads, starts or changes sessions: the ``SessionService`` helpers its handlers share.
/// The one requirement is the service itself; every other dependency a handler has is its own stored property.
protocol SessionUsing: Sendable {
    /// Issues, finds and ends sessions, and keeps the session cache.
    var sessions: SessionService { get }
}

extension SessionUsing {
    /// Records `event` in the audit trail, when one is configured (`server.audit_log`).
    func audit(_ event: AuditEvent) { sessions.audit(event) }

    /// The session of `request` (see ``SessionService/current(_:cached:)``).
    func currentSession(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError)
        -> CurrentSession?
    {
        try await sessions.current(request, cached: cached)
    }

    /// The session of `request`; ``ServerError`` `not_signed_in` (401) without one.
    func requireSession(_ request: HTTPServerRequest, cached: Bool = false) async throws(ServerError)
        -> CurrentSession
    {
        try await sessions.require(request, cached: cached)
    }

    /// Starts a new cookie session for `identity` and returns its id and cookie
    /// (``SessionService/issueCookieSession(for:providerSessionID:groups:roles:tenant:agent:)``).
    func createSession(
        for identity: LinkedIdentity, providerSessionID: String? = nil, groups: [String] = [], roles: [String] = [],
        tenant: String? = nil, agent: String? = nil, authentication: SessionAuthentication = .init()
    ) async throws(ServerError) -> (id: String, cookie: String) {
        try await sessions.issueCookieSession(
            for: identity, providerSessionID: providerSessionID, groups: groups, roles: roles, tenant: tenant,
            agent: agent, authentication: authentication)
    }

    /// The session cookie's value when it looks like a session id (``SessionService/cookieValue(_:)``).
    ///
    /// - Throws: ``ServerError`` `duplicate_cookie` (400) when the request carries the session cookie twice.
    func sessionCookieValue(_ request: HTTPServerRequest) throws(ServerError) -> String? {
        try sessions.cookieValue(request)
    }
}

/// Runs a store operation, mapping `identity_already_linked` to `account_exists` (403) and every other store
/// failure to `store_unavailable` (503).
func storing<T: Sendable>(
    _ doing: String, store: String = "accounts", _ operation: () async throws(StoreError) -> T
) async throws(ServerError) -> T {
    do throws(StoreError) {
        return try await operation()
    } catch {
        if error.code == .identityAlreadyLinked { throw ServerError(AccountRefusal.accountExists(provider: nil)) }
        throw ServerError(error, while: doing, store: store)
    }
}
