import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension SignInServer {
    /// The event endpoint of provider `name` matching `segments` (the path after `/auth/{name}/`), when its
    /// plugin declares one; `nil` when none matches the path.
    ///
    /// - Throws: ``ServerError`` `method_not_allowed` (405) when the path matches under another method.
    func eventEndpoint(provider name: String, segments: [String], method: String) throws(ServerError) -> (
        ResolvedProvider, ProviderEventEndpoint, [String]
    )? {
        guard let provider = providers[name] else { return nil }
        var allowed: [String] = []
        for endpoint in provider.plugin.eventEndpoints(for: provider) {
            guard let parameters = endpoint.match(segments) else { continue }
            if endpoint.method == method { return (provider, endpoint, parameters) }
            allowed.append(endpoint.method)
        }
        guard allowed.isEmpty else {
            throw ServerError(
                .init(rawValue: "method_not_allowed"),
                "expected \(allowed.joined(separator: " or ")), found \(method.prefix(16))", status: 405)
        }
        return nil
    }

    /// A provider event endpoint (`/auth/{name}/…`, declared by the provider's plugin): the body is capped,
    /// the plugin verifies the request and names its actions, and the account changes are applied in one
    /// store transaction once per idempotency key. Sessions end just before that transaction (only for an event
    /// not applied yet, and a session store failure answers 503 so that the provider retries), tokens are revoked
    /// only when it applied; so a replay changes nothing.
    ///
    /// - Throws: ``ServerError`` with the plugin's code (400 for a refused event), `store_unavailable` (503).
    func providerEvent(
        _ request: HTTPServerRequest, provider: ResolvedProvider, endpoint: ProviderEventEndpoint,
        parameters: [String]
    ) async throws(ServerError) -> HTTPServerResponse {
        let limit = min(endpoint.maximumBodyBytes, options.maximumNotificationBytes)
        guard request.body.count <= limit else {
            throw ServerError(
                .init(rawValue: endpoint.errorCode),
                "expected a body of at most \(limit) bytes, found \(request.body.count)", status: 400)
        }
        let context = ProviderEventContext(
            provider: provider, keySets: keySets, accounts: stores.accounts, clock: clock, leeway: options.flow.leeway,
            publicURL: options.publicURL, pathPrefix: options.pathPrefix)
        let outcome: ProviderEventOutcome
        do throws(ProviderEventError) {
            outcome = try await provider.plugin.handleEvent(
                ProviderEventRequest(endpoint: endpoint, pathParameters: parameters, http: request), context: context)
        } catch {
            logger.log(
                error.status >= 500 ? .error : .warning, "provider event refused",
                metadata: ["provider": provider.name, "code": error.code])
            countNotification(provider: provider.name, type: "invalid", applied: false)
            if let response = error.response { return response }
            throw ServerError(.init(rawValue: error.code), error.message, status: error.status)
        }
        // A provider's events act on that provider's identities only.
        for action in outcome.actions where action.identity.provider != provider.name {
            logger.log(
                .error, "provider event names another provider's identity", metadata: ["provider": provider.name])
            throw ServerError(
                .init(rawValue: "invalid_event_outcome"),
                "expected the plugin's actions to name identities of provider '\(provider.name)', found another",
                status: 500)
        }
        for action in outcome.actions { noteChanged(identity: action.identity) }
        let disposition = try await apply(outcome, provider: provider.name)
        countNotification(
            provider: provider.name, type: Self.eventTypeLabel(outcome.summary), applied: disposition == .applied)
        logger.log(
            .info, "provider event \(disposition.rawValue)",
            metadata: ["provider": provider.name, "event": String(outcome.summary.prefix(64))])
        return outcome.respond(disposition)
    }

    /// Applies the outcome's actions once under its idempotency key.
    private func apply(_ outcome: ProviderEventOutcome, provider: String) async throws(ServerError)
        -> ProviderEventDisposition
    {
        guard let key = outcome.idempotencyKey else {
            return outcome.actions.isEmpty ? .nothingToApply : .unknownIdentity
        }
        let accounts = stores.accounts
        // Tokens to revoke at the provider are read before the changes can delete them.
        var toRevoke: [(IdentityKey, StoredTokens)] = []
        for case .revokeTokens(let identity) in outcome.actions {
            if let tokens = try await storing(
                "read the identity's tokens",
                { () async throws(StoreError) in
                    try await accounts.tokens(for: identity)
                })
            {
                toRevoke.append((identity, tokens))
            }
        }
        let changes = outcome.actions.compactMap(\.accountChange)
        // Sessions are looked up before the changes too: removing an identity must still end its user's sessions.
        var users: [UserID] = []
        for case .endUserSessions(let identity) in outcome.actions {
            if let user = try await storing(
                "look up the identity",
                { () async throws(StoreError) in
                    try await accounts.identity(identity)
                })?.userID
            {
                noteChanged(user: user)
                users.append(user)
            }
        }
        // Sessions end before the event is recorded as applied: when the session store (Redis, say) fails, the
        // provider is answered 503 and delivers the event again, instead of an acknowledged event whose sessions
        // live on. An event already applied ends nothing, so a replay cannot end the sessions made since.
        let id = "\(provider):\(key)"
        let seen = try await storing("check whether the provider event was applied") { () async throws(StoreError) in
            try await accounts.isNotificationApplied(id: id)
        }
        guard !seen else { return .alreadyApplied }
        let sessions = stores.sessions
        do throws(StoreError) {
            for action in outcome.actions {
                switch action {
                case .endSessions(let identity):
                    _ = try await sessions.deleteSessions(identity: identity)
                case .endProviderSession(let identity, let sid):
                    _ = try await sessions.deleteSessions(identity: identity, providerSessionID: sid)
                case .account, .revokeTokens, .endUserSessions:
                    break
                }
            }
            for user in users { _ = try await sessions.deleteSessions(userID: user) }
        } catch {
            throw ServerError(error, while: "end the sessions the provider event ends", store: "sessions")
        }
        let applied: Bool
        do throws(StoreError) {
            applied = try await accounts.applyNotification(id: id, changes: changes)
        } catch {
            if error.code == .identityNotFound { return .unknownIdentity }
            throw ServerError(error, while: "apply the provider event", store: "accounts")
        }
        guard applied else { return .alreadyApplied }
        for (identity, tokens) in toRevoke { await revoke(tokens, provider: identity.provider) }
        return .applied
    }

    /// The `type` label of a provider event: the plugin's summary (an event type such as `consent-revoked`) when
    /// it is a short lower-case token list, `other` otherwise, so label values stay few and never carry data.
    static func eventTypeLabel(_ summary: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.,".utf8)
        guard !summary.isEmpty, summary.utf8.count <= 64, summary.utf8.allSatisfy(allowed.contains) else {
            return "other"
        }
        return summary
    }
}
