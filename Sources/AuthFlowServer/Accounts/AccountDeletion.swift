import AuthFlow

extension SignInServer {
    /// What ``SignInServer/deleteUser(_:)`` did.
    package struct AccountDeletion: Sendable, Hashable {
        /// The identities deleted with the user.
        package var identities: [LinkedIdentity]
        /// How many sessions of the user were ended.
        package var endedSessions: Int
        /// Providers whose stored tokens could not be revoked (unreachable, refused, or no longer configured),
        /// one entry per token; the deletion went ahead regardless.
        package var unrevokedProviders: [String]
    }

    /// Deletes a user the way account deletion (`POST /auth/account/delete`, `authflow users delete`) does:
    /// revokes every stored token at its provider, ends every session of the user, then deletes the user with
    /// its identities and tokens (in this order, so a failure part-way never leaves a live session for a
    /// deleted user). A revocation that fails is logged and the deletion goes ahead, as does one whose tokens
    /// no longer decrypt (sealed under a secret since dropped from `server.previous_secrets`): those stay unrevoked.
    ///
    /// - Throws: ``ServerError`` `store_unavailable` when a store fails, including for a user that does not
    ///   exist (the store's `user_not_found`); nothing after the failing step is done.
    package func deleteUser(_ user: UserID) async throws(ServerError) -> AccountDeletion {
        try await context.sessions.changing { changes async throws(ServerError) in
            try await context.routes.account.deleteUser(user, actor: .admin, changes: changes)
        }
    }
}

extension AccountRoutes {
    /// Deletes a user the way account deletion (`POST /auth/account/delete`, `authflow users delete`) does:
    /// revokes every stored token at its provider, ends every session of the user, then deletes the user with
    /// its identities and tokens (in this order, so a failure part-way never leaves a live session for a
    /// deleted user). A revocation that fails is logged and the deletion goes ahead, as does one whose tokens
    /// no longer decrypt (sealed under a secret since dropped from `server.previous_secrets`): those stay unrevoked.
    /// The user is noted in `changes`.
    ///
    /// - Throws: ``ServerError`` `store_unavailable` when a store fails, including for a user that does not
    ///   exist (the store's `user_not_found`); nothing after the failing step is done.
    func deleteUser(_ user: UserID, actor: AuditEvent.Actor = .user, changes: SessionChangeLog)
        async throws(ServerError) -> SignInServer.AccountDeletion
    {
        let accounts = stores.accounts
        let sessions = stores.sessions
        changes.noteChanged(user: user)
        let tokens = try await storing("read the user's tokens") { () async throws(StoreError) in
            do throws(StoreError) {
                return try await accounts.tokens(ofUser: user)
            } catch  where error.code == .corruptData {
                // A token sealed under a dropped secret: the account still goes; what decrypts is revoked below.
                return [:]
            }
        }
        var unrevoked: [String] = []
        for (identity, stored) in tokens.sorted(by: { $0.key.description < $1.key.description }) {
            if await !revoker.revoke(stored, provider: identity.provider) { unrevoked.append(identity.provider) }
        }
        let ended = try await storing("end the user's sessions", store: "sessions") { () async throws(StoreError) in
            try await sessions.endSessions(of: user)
        }
        let removed = try await storing("delete the user") { () async throws(StoreError) in
            try await accounts.deleteUser(user)
        }
        // Tokens saved by a sign-in that raced the deletion were not in the first read: revoke them too.
        for identity in removed where tokens[identity.identity.key] == nil {
            if let stored = identity.tokens, await !revoker.revoke(stored, provider: identity.identity.provider) {
                unrevoked.append(identity.identity.provider)
            }
        }
        logger.log(.info, "account deleted", metadata: ["identities": "\(removed.count)"])
        audit(
            AuditEvent(
                .accountDeleted, userID: user, actor: actor,
                details: ["identities": .integer(Int64(removed.count)), "sessions": .integer(Int64(ended))]))
        return SignInServer.AccountDeletion(
            identities: removed.map(\.identity), endedSessions: ended, unrevokedProviders: unrevoked)
    }
}
