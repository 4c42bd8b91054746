import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE

/// Account resolution for a completed sign-in (the web callback and native sign-in): the core's
/// `AccountResolver` under the server's account rules, with its refusals as ``ServerError``s. Built once per
/// server.
struct AccountResolution: Sendable {
    let stores: SignInServer.Stores
    /// `server.signup`, `server.link_by_verified_email` and the providers whose emails may link.
    let accountRules: AccountRules
    let random: BufferedRandom
    let logger: any ServerLogger
    let sessions: SessionService

    init(
        stores: SignInServer.Stores, options: SignInServer.Options, providers: ProviderDirectory,
        random: BufferedRandom, logger: any ServerLogger, sessions: SessionService
    ) {
        self.stores = stores
        self.accountRules = Self.accountRules(options: options, providers: providers)
        self.random = random
        self.logger = logger
        self.sessions = sessions
    }

    /// Finds, creates or links the user of a completed sign-in with `AccountResolver` under `AccountRules`,
    /// updates the stored profile with the verified values and stores the sign-in's `tokens`,
    /// in the same transaction as the account write (one commit per sign-in where the store supports it). A
    /// `link` links to the user of the request's session, presented as `cookieAuthority` says for a cookie (a
    /// web link's flow cookie, or a native link's same-origin check) or by a bearer token. `endingSession`, the
    /// browser's previous session id, is deleted in that same transaction where the stores can
    /// (`SessionEndingAccountStore`: one durable commit per sign-in); the caller still ends it afterwards, which
    /// then deletes nothing and costs no sync.
    ///
    /// - Throws: ``ServerError``: the refusal's code and status, or `store_unavailable` (503).
    func resolveAccount(
        for result: SignInResult, request: HTTPServerRequest, pendingName: String?, tokens: StoredTokens,
        cookieAuthority: LinkAuthority = .flowBoundCookie, endingSession: String? = nil
    ) async throws(ServerError) -> LinkedIdentity {
        var signedInUser: UserID?
        var authority = cookieAuthority
        if result.intent == .link, let session = try await sessions.current(request) {
            signedInUser = session.record.userID
            if session.record.kind == .bearer { authority = .bearer }
        }
        let resolver = AccountResolver(accounts: accounts(ending: endingSession), rules: accountRules, random: random)
        let outcome: AccountResolver.Outcome
        do throws(AccountResolutionError) {
            outcome = try await resolver.resolve(
                result, signedInUser: signedInUser, linkAuthority: authority,
                name: pendingName ?? result.unverifiedProfile?.displayName, tokens: tokens)
        } catch {
            switch error {
            case .refused(let refusal):
                throw ServerError(refusal)
            case .storeFailed(let failure, let doing):
                throw ServerError(failure, while: doing, store: "accounts")
            case .inconsistentStore(let message):
                throw ServerError(.storeUnavailable, message, status: 503)
            }
        }
        let user = outcome.identity.userID
        ActiveSpan.current?.event(Self.eventName(outcome.decision))
        switch outcome.decision {
        case .create:
            logger.log(.info, "user created", metadata: ["provider": result.provider])
            sessions.audit(AuditEvent(.accountCreated, userID: user, provider: result.provider, actor: .user))
        case .link(_, let byVerifiedEmail):
            if byVerifiedEmail {
                logger.log(.info, "linked by verified email", metadata: ["provider": result.provider])
            }
            sessions.audit(
                AuditEvent(
                    .identityLinked, userID: user, provider: result.provider, actor: .user,
                    details: ["method": .string(byVerifiedEmail ? "verified_email" : "session")]))
        default: break
        }
        return outcome.identity
    }

    /// The account store for a sign-in's write: one that also ends `session` in the write's transaction where the
    /// account and session stores share a database, else the plain one.
    func accounts(ending session: String?) -> any AccountStore {
        guard let session, !session.isEmpty, let ending = stores.accounts as? any SessionEndingAccountStore,
            let view = ending.endingSession(digest: Digest.sha256(Array(session.utf8)), keptIn: stores.sessions)
        else { return stores.accounts }
        return view
    }

    /// The span event of an account decision: `account.created`, `account.linked` or `account.updated`.
    static func eventName(_ decision: AccountDecision) -> String {
        switch decision {
        case .create: "account.created"
        case .link: "account.linked"
        default: "account.updated"
        }
    }

    /// The account rules of the server's options; a stored verified email may be linked to only through a
    /// provider that is configured here and whose plugin vouches for addresses (not Facebook).
    static func accountRules(options: SignInServer.Options, providers: ProviderDirectory) -> AccountRules {
        let vouching = providers.byName.compactMap { name, provider -> String? in
            if case .never = provider.plugin.emailLinkability { return nil }
            return name
        }
        return AccountRules(
            signup: options.signup, linkByVerifiedEmail: options.linkByVerifiedEmail,
            vouchingProviders: Set(vouching))
    }
}

extension ServerError {
    /// Wraps an account refusal: its code, message, status and provider.
    init(_ refusal: AccountRefusal) {
        self.init(
            Code(rawValue: refusal.code.rawValue), refusal.message, status: refusal.statusHint,
            provider: refusal.provider)
    }
}
