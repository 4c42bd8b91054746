import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE

extension SignInServer {
    /// Finds, creates or links the user of a completed sign-in according to its intent, updates the
    /// stored profile with the verified values and stores the sign-in's `tokens`, in the same transaction as
    /// the account write (one commit per sign-in where the store supports it).
    ///
    /// - `login`: an existing identity signs in (refused when disabled); a new one links to the single user
    ///   with exactly the same verified email (`matches(_:_:)`) when
    ///   `link_by_verified_email` allows this provider, else creates a user unless
    ///   `signup` is off (`signup_disabled`).
    /// - `register`: refuses an identity that already has a user (`account_exists`).
    /// - `link`: attaches the identity to the signed-in user (`not_signed_in` without a session,
    ///   `account_exists` when another user has it).
    ///
    /// - Throws: ``ServerError``.
    func resolveAccount(
        for result: SignInResult, request: HTTPServerRequest, pendingName: String?, tokens: StoredTokens
    ) async throws(ServerError) -> LinkedIdentity {
        let verified = result.identity
        let key = IdentityKey(provider: result.provider, subject: verified.subject)
        let name = pendingName ?? result.unverifiedProfile?.displayName ?? verified.name
        let profile = IdentityProfile(verified, name: name)
        let update = IdentityProfileUpdate(verified, name: name)
        let accounts = stores.accounts
        let existing = try await storing("look up the identity") { () async throws(StoreError) in
            try await accounts.identity(key)
        }
        switch result.intent {
        case .login:
            if let existing {
                guard !existing.isDisabled else { throw Self.identityDisabled }
                return try await storing("update the identity") { () async throws(StoreError) in
                    try await accounts.updateIdentityProfile(update, for: key, tokens: tokens)
                }
            }
            if options.linkByVerifiedEmail.allows(provider: result.provider), verified.emailLinkable,
                let email = verified.email
            {
                // The store narrows by its own (looser) normalization; only exact matches count.
                let matches = try await storing("find users by verified email") { () async throws(StoreError) in
                    try await accounts.users(withVerifiedEmail: email)
                }.filter { user in
                    user.identities.contains { identity in
                        identity.emailVerified && !identity.isDisabled && vouchesForStoredEmail(of: identity)
                            && identity.email.map { EmailLinkPolicy.matches($0, email) } ?? false
                    }
                }
                if matches.count == 1, let user = matches.first {
                    logger.log(.info, "linked by verified email", metadata: ["provider": result.provider])
                    return try await storing("link the identity") { () async throws(StoreError) in
                        try await accounts.linkIdentity(key, profile: profile, to: user.id, tokens: tokens)
                    }
                }
            }
            guard options.signup else { throw Self.signupDisabled }
            do throws(ServerError) {
                return try await createUser(key, profile: profile, tokens: tokens)
            } catch {
                // Another instance (or request) completed the first sign-in of this identity between the lookup
                // and the insert: the identity's unique key refused a second user, so this sign-in is that user's.
                guard error.code == .accountExists else { throw error }
                let winner = try await storing("look up the identity") { () async throws(StoreError) in
                    try await accounts.identity(key)
                }
                guard let winner else { throw error }
                guard !winner.isDisabled else { throw Self.identityDisabled }
                return try await storing("update the identity") { () async throws(StoreError) in
                    try await accounts.updateIdentityProfile(update, for: key, tokens: tokens)
                }
            }
        case .register:
            guard existing == nil else { throw Self.accountExists(result.provider) }
            guard options.signup else { throw Self.signupDisabled }
            return try await createUser(key, profile: profile, tokens: tokens)
        case .link:
            guard let session = try await currentSession(request) else {
                throw ServerError(
                    .notSignedIn, "expected a signed-in session to link to, found none", status: 401,
                    provider: result.provider)
            }
            if let existing {
                guard existing.userID == session.record.userID else { throw Self.accountExists(result.provider) }
                guard !existing.isDisabled else { throw Self.identityDisabled }
                return try await storing("update the identity") { () async throws(StoreError) in
                    try await accounts.updateIdentityProfile(update, for: key, tokens: tokens)
                }
            }
            let user = session.record.userID
            return try await storing("link the identity") { () async throws(StoreError) in
                try await accounts.linkIdentity(key, profile: profile, to: user, tokens: tokens)
            }
        }
    }

    /// Runs a store operation, mapping `identity_already_linked` to `account_exists` (403) and every other
    /// store failure to `store_unavailable` (503).
    func storing<T: Sendable>(
        _ doing: String, store: String = "accounts", _ operation: () async throws(StoreError) -> T
    ) async throws(ServerError) -> T {
        do throws(StoreError) {
            return try await operation()
        } catch {
            if error.code == .identityAlreadyLinked { throw Self.accountExists(nil) }
            throw ServerError(error, while: doing, store: store)
        }
    }

    static func accountExists(_ provider: String?) -> ServerError {
        ServerError(
            .accountExists, "expected an identity without a user (or already this user's), found one that has a user",
            status: 403, provider: provider)
    }

    private func createUser(_ key: IdentityKey, profile: IdentityProfile, tokens: StoredTokens)
        async throws(ServerError) -> LinkedIdentity
    {
        let accounts = stores.accounts
        let id = UserID.generate(using: random)
        let account = try await storing("create the user") { () async throws(StoreError) in
            try await accounts.createUser(id, identity: key, profile: profile, tokens: tokens)
        }
        logger.log(.info, "user created", metadata: ["provider": key.provider])
        guard let identity = account.identities.first(where: { $0.key == key }) else {
            throw ServerError(
                .storeUnavailable, "expected the new user to hold its identity, found none", status: 503)
        }
        return identity
    }

    static let identityDisabled = ServerError(
        .identityDisabled, "expected an identity that may sign in, found one that is disabled", status: 403)

    /// Whether a stored identity's verified email may be what a new sign-in links to: the same trust as the
    /// linking side. A private relay address never is, nor the email of a provider whose plugin vouches for
    /// none (Facebook) or that is no longer configured.
    func vouchesForStoredEmail(of identity: LinkedIdentity) -> Bool {
        guard !identity.isPrivateEmail, let provider = providers[identity.provider] else { return false }
        if case .never = provider.plugin.emailLinkability { return false }
        return true
    }
}
