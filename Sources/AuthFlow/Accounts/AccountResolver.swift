package import AuthFlowJOSE

/// The thin driver of account resolution: reads what an `AccountStore` holds for a completed sign-in, asks
/// ``AccountRules/decide(_:)`` and applies the decision, storing the sign-in's tokens in the same transaction
/// as the account write where the store supports it.
///
/// A `create` that another sign-in of the same identity won meanwhile (the store refuses a second user for
/// it) is decided once more from the stores as they are then, so the first sign-in's race ends signed in as
/// the winner's user.
package struct AccountResolver: Sendable {
    /// What the decision applied and the identity as stored afterwards.
    package struct Outcome: Sendable, Hashable {
        /// The decision applied (``AccountDecision/update``, ``AccountDecision/create`` or a link).
        package let decision: AccountDecision
        /// The identity as stored afterwards, with its user.
        package let identity: LinkedIdentity
    }

    /// The store read and written.
    package let accounts: any AccountStore
    /// The sign-up and linking rules.
    package let rules: AccountRules
    let random: any SecureRandom

    /// Creates a driver over `accounts`; `random` makes the ids of new users.
    package init(accounts: any AccountStore, rules: AccountRules, random: any SecureRandom = SystemRandom()) {
        self.accounts = accounts
        self.rules = rules
        self.random = random
    }

    /// Finds, creates or links the user of `result` according to its intent and updates the stored profile.
    ///
    /// - Parameters:
    ///   - result: the completed sign-in.
    ///   - signedInUser: the user signed in where the sign-in began; a `link` needs one.
    ///   - linkAuthority: what presented `signedInUser` (a web link's flow cookie by default).
    ///   - name: the display name to store (e.g. Apple's first-login name), or `nil` for the identity's own.
    ///   - tokens: the tokens to store for the identity.
    /// - Throws: ``AccountResolutionError``: `invalid_subject` before any store is read for a subject that
    ///   `AccountRules.subjectRefusal(_:)` refuses; a store's `identity_already_linked` is refused as
    ///   `account_exists`.
    package func resolve(
        _ result: SignInResult, signedInUser: UserID?, linkAuthority: LinkAuthority = .flowBoundCookie,
        name: String?, tokens: StoredTokens
    ) async throws(AccountResolutionError) -> Outcome {
        let verified = result.identity
        let key = IdentityKey(provider: result.provider, subject: verified.subject)
        // Every sign-in, web or native, is resolved here: the one place a provider's subject becomes a key.
        if let refusal = AccountRules.subjectRefusal(key) { throw .refused(refusal) }
        let name = name ?? verified.name
        var situation = AccountSituation(
            intent: result.intent, provider: result.provider, storedIdentity: nil,
            signedInUser: signedInUser, linkAuthority: linkAuthority, email: verified.email,
            emailLinkable: verified.emailLinkable)
        // At most two decisions: the second only after a create lost its race.
        while true {
            let accounts = accounts
            situation.storedIdentity = try await storing("look up the identity") { () async throws(StoreError) in
                try await accounts.identity(key)
            }
            if let email = rules.emailToMatch(situation) {
                situation.usersWithEmail = try await storing("find users by verified email") {
                    () async throws(StoreError) in try await accounts.users(withVerifiedEmail: email)
                }
            }
            let decision = rules.decide(situation)
            switch decision {
            case .refuse(let refusal):
                throw .refused(refusal)
            case .update:
                let update = IdentityProfileUpdate(verified, name: name)
                let identity = try await storing("update the identity") { () async throws(StoreError) in
                    try await accounts.updateIdentityProfile(update, for: key, tokens: tokens)
                }
                return Outcome(decision: decision, identity: identity)
            case .link(let user, _):
                let profile = IdentityProfile(verified, name: name)
                let identity = try await storing("link the identity") { () async throws(StoreError) in
                    try await accounts.linkIdentity(key, profile: profile, to: user, tokens: tokens)
                }
                return Outcome(decision: decision, identity: identity)
            case .create:
                let profile = IdentityProfile(verified, name: name)
                if let identity = try await create(key, profile: profile, tokens: tokens, situation: &situation) {
                    return Outcome(decision: decision, identity: identity)
                }
            }
        }
    }

    /// Creates a user holding `key`; `nil` when another instance (or request) completed the first sign-in of
    /// this identity between the lookup and the insert (the identity's unique key refused a second user), so
    /// the caller decides again, once.
    private func create(
        _ key: IdentityKey, profile: IdentityProfile, tokens: StoredTokens, situation: inout AccountSituation
    ) async throws(AccountResolutionError) -> LinkedIdentity? {
        let id = UserID.generate(using: random)
        let account: UserAccount
        do throws(StoreError) {
            account = try await accounts.createUser(id, identity: key, profile: profile, tokens: tokens)
        } catch {
            guard error.code == .identityAlreadyLinked, !situation.lostCreateRace else {
                throw Self.failure(error, while: "create the user")
            }
            situation.lostCreateRace = true
            return nil
        }
        guard let identity = account.identities.first(where: { $0.key == key }) else {
            throw .inconsistentStore("expected the new user to hold its identity, found none")
        }
        return identity
    }

    /// Runs a store operation, mapping its failure (see ``failure(_:while:)``).
    func storing<T: Sendable>(_ doing: String, _ operation: () async throws(StoreError) -> T)
        async throws(AccountResolutionError) -> T
    {
        do throws(StoreError) {
            return try await operation()
        } catch {
            throw Self.failure(error, while: doing)
        }
    }

    /// `identity_already_linked` is the identity's user refusing another: `account_exists`; the rest are store
    /// failures.
    static func failure(_ error: StoreError, while doing: String) -> AccountResolutionError {
        error.code == .identityAlreadyLinked
            ? .refused(.accountExists(provider: nil)) : .storeFailed(error, while: doing)
    }
}
