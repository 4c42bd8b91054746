import AuthFlow
import AuthFlowHTTP

extension ProviderEventRoutes {
    /// Applies the outcome's actions once under its idempotency key; the users whose sessions end are noted in
    /// `changes`.
    func apply(_ outcome: ProviderEventOutcome, provider: String, changes: SessionChangeLog)
        async throws(ServerError) -> ProviderEventDisposition
    {
        guard let key = outcome.idempotencyKey else {
            guard !outcome.actions.isEmpty else { return .nothingToApply }
            // Ending the sessions of a provider session (front-channel logout, which carries no id to apply
            // once by) is idempotent by itself: it is applied each time and records nothing.
            guard outcome.actions.allSatisfy(\.endsProviderSession) else { return .unknownIdentity }
            _ = try await endSessions(of: outcome, users: [])
            return .applied
        }
        let accounts = stores.accounts
        // Tokens to revoke at the provider are read before the account changes can delete them.
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
        let accountChanges = outcome.actions.compactMap(\.accountChange)
        // Sessions are looked up before the account changes too: removing an identity must still end its user's
        // sessions.
        var users: [UserID] = []
        for case .endUserSessions(let identity) in outcome.actions {
            if let user = try await storing(
                "look up the identity",
                { () async throws(StoreError) in
                    try await accounts.identity(identity)
                })?.userID
            {
                changes.noteChanged(user: user)
                users.append(user)
            }
        }
        let id = "\(provider):\(key)"
        let seen = try await storing("check whether the provider event was applied") { () async throws(StoreError) in
            try await accounts.isNotificationApplied(id: id)
        }
        guard !seen else { return .alreadyApplied }
        let ended = try await endSessions(of: outcome, users: users)
        let applied: Bool
        do throws(StoreError) {
            applied = try await accounts.applyNotification(id: id, changes: accountChanges)
        } catch {
            if error.code == .identityNotFound { return .unknownIdentity }
            throw ServerError(error, while: "apply the provider event", store: "accounts")
        }
        guard applied else { return .alreadyApplied }
        for (identity, tokens) in toRevoke { await revoker.revoke(tokens, provider: identity.provider) }
        if ended > 0 { await auditEndedSessions(ended, of: outcome, users: users, provider: provider) }
        return .applied
    }

    /// Ends the sessions an event not applied yet ends: the identities' (all, or one provider session) and the
    /// whole sessions of `users`.
    ///
    /// Sessions end before the event is recorded as applied: when the session store (Redis, say) fails, the
    /// provider is answered 503 and delivers the event again, instead of an acknowledged event whose sessions
    /// live on. An event already applied ends nothing, so a replay cannot end the sessions made since.
    private func endSessions(of outcome: ProviderEventOutcome, users: [UserID]) async throws(ServerError) -> Int {
        let sessions = stores.sessions
        var ended = 0
        do throws(StoreError) {
            for action in outcome.actions {
                switch action {
                case .endSessions(let identity):
                    ended += try await sessions.deleteSessions(identity: identity)
                case .endProviderSession(let identity, let sid):
                    ended += try await sessions.deleteSessions(identity: identity, providerSessionID: sid)
                case .account, .revokeTokens, .endUserSessions:
                    break
                }
            }
            for user in users { ended += try await sessions.deleteSessions(userID: user) }
        } catch {
            throw ServerError(error, while: "end the sessions the provider event ends", store: "sessions")
        }
        return ended
    }

    /// Writes `session.revoked` (actor `provider`) for the sessions an applied event ended, naming the user when
    /// the event concerns one (looked up from its identity; none when that fails or there are several).
    private func auditEndedSessions(_ ended: Int, of outcome: ProviderEventOutcome, users: [UserID], provider: String)
        async
    {
        var concerned = Set(users)
        for action in outcome.actions {
            switch action {
            case .endSessions(let identity), .endProviderSession(let identity, _):
                if let user = try? await stores.accounts.identity(identity)?.userID { concerned.insert(user) }
            case .account, .revokeTokens, .endUserSessions:
                break
            }
        }
        audit(
            .sessionsRevoked(
                concerned.count == 1 ? concerned.first : nil, actor: .provider,
                scope: users.isEmpty ? "identity" : "user", count: ended, provider: provider))
    }
}

extension ProviderEventAction {
    /// Whether this ends the sessions of one provider session and does nothing else.
    fileprivate var endsProviderSession: Bool {
        if case .endProviderSession = self { return true }
        return false
    }
}
