public import AuthFlowJOSE
import Foundation

/// Hands out a usable access token for a linked identity, refreshing it through ``TokenOperations`` when it
/// is expired, about to expire, or known to be rejected, with **one refresh per identity at a time** across
/// every caller sharing the `AccountStore` (tasks in one process, or server instances on one database).
///
/// The store's refresh lease decides who refreshes: the caller that takes it
/// (`TokenStore/beginTokenRefresh(for:holder:leaseDuration:)`, one conditional write) redeems the stored
/// refresh token and writes the new tokens while ending the lease
/// (`TokenStore/completeTokenRefresh(_:for:holder:)`, one statement), so a rotated refresh token (X) is
/// replaced before anyone can present the old one. The other callers poll the store, at most
/// ``Options/maximumWait``, and return the tokens the holder wrote; when the wait runs out they fail with
/// `refresh_wait_timed_out`. A holder that crashes leaves its lease to expire after ``Options/leaseDuration``,
/// and the next caller takes over.
///
/// ```swift
/// let refresher = TokenRefresher(accounts: stores.accounts, operations: tokenOperations)
/// let tokens = try await refresher.accessToken(for: IdentityKey(provider: "x", subject: userID))
/// // call the provider's API with tokens.accessToken; on a 401, ask again with forceRefresh: true
/// ```
public struct TokenRefresher: Sendable {
    /// Tunables.
    public struct Options: Sendable {
        /// Refresh when the access token expires within this many seconds (or has no known expiry and the
        /// caller forces it).
        public var refreshMargin: Double
        /// How long a lease lasts, in seconds; keep it longer than a refresh request may take (the HTTP
        /// client's timeout), so a slow holder is not overtaken.
        public var leaseDuration: Double
        /// How long a caller waits for another caller's refresh before `refresh_wait_timed_out`.
        public var maximumWait: Duration
        /// How often a waiting caller reads the store.
        public var pollInterval: Duration

        /// Creates options; the defaults refresh a minute ahead, lease for 60 s and wait at most 15 s.
        public init(
            refreshMargin: Double = 60, leaseDuration: Double = 60, maximumWait: Duration = .seconds(15),
            pollInterval: Duration = .milliseconds(50)
        ) {
            self.refreshMargin = refreshMargin
            self.leaseDuration = leaseDuration
            self.maximumWait = maximumWait
            self.pollInterval = pollInterval
        }
    }

    /// The store holding the tokens and the leases.
    package let accounts: any AccountStore
    /// The refresh requests.
    package let operations: TokenOperations
    /// The tunables.
    package let options: Options

    private let clock: any WallClock
    private let sleeper: any Clock<Duration>
    private let random: any SecureRandom

    /// Creates a refresher.
    ///
    /// - Parameters:
    ///   - accounts: the account store (shared by every instance that refreshes the same identities).
    ///   - operations: sends the refresh-token grants.
    ///   - clock: the time source for expiry decisions (the store's clock decides lease expiry).
    ///   - sleeper: what waiting callers sleep on between reads.
    ///   - random: the source of lease-holder ids.
    ///   - options: the tunables.
    public init(
        accounts: any AccountStore, operations: TokenOperations, clock: any WallClock = SystemClock(),
        sleeper: any Clock<Duration> = ContinuousClock(), random: any SecureRandom = SystemRandom(),
        options: Options = Options()
    ) {
        self.accounts = accounts
        self.operations = operations
        self.clock = clock
        self.sleeper = sleeper
        self.random = random
        self.options = options
    }

    /// The identity's tokens with an access token usable for at least ``Options/refreshMargin`` seconds,
    /// refreshed (once, whoever else asks at the same time) when needed.
    ///
    /// - Parameters:
    ///   - identity: the linked identity.
    ///   - forceRefresh: refresh even when the stored access token looks valid (the provider rejected it);
    ///     tokens another caller refreshed since this call began count as the refresh.
    /// - Returns: the stored tokens after any refresh; the refresh token in them is the one to keep.
    /// - Throws: ``TokenRefreshError``: `no_tokens`, `no_refresh_token`, `refresh_wait_timed_out`,
    ///   `refresh_failed` (the provider's answer in ``TokenRefreshError/signInError``; the lease is released
    ///   and the stored tokens are unchanged), `store_failed`.
    public func accessToken(for identity: IdentityKey, forceRefresh: Bool = false) async throws(TokenRefreshError)
        -> StoredTokens
    {
        guard
            let initial = try await store(
                identity, { () throws(StoreError) in try await accounts.tokens(for: identity) })
        else { throw noTokens(identity) }
        if !forceRefresh, isUsable(initial) { return initial }
        let holder = Base64URL.encode(random.bytes(16))
        let polls = max(1, Int((options.maximumWait / options.pollInterval).rounded(.up)))
        for poll in 0...polls {
            if poll > 0 { try? await sleeper.sleep(for: options.pollInterval) }
            let lease = try await store(identity) { () throws(StoreError) in
                try await accounts.beginTokenRefresh(
                    for: identity, holder: holder, leaseDuration: options.leaseDuration)
            }
            guard let lease else { throw noTokens(identity) }
            let current = lease.tokens
            // Another caller refreshed since this call read the tokens: its result is ours.
            let refreshedElsewhere = current != initial && isUsable(current)
            switch lease {
            case .held:
                if refreshedElsewhere { return current }
            case .acquired:
                if refreshedElsewhere || (!forceRefresh && isUsable(current)) {
                    try await store(identity) { () throws(StoreError) in
                        try await accounts.releaseTokenRefresh(for: identity, holder: holder)
                    }
                    return current
                }
                return try await refresh(identity, current, holder: holder)
            }
        }
        throw TokenRefreshError(
            .refreshWaitTimedOut,
            "expected another caller's refresh of this identity to finish within \(options.maximumWait), found its "
                + "lease still held",
            provider: identity.provider)
    }

    /// Redeems the leased refresh token and writes the result, ending the lease; on failure, releases it.
    private func refresh(_ identity: IdentityKey, _ stored: StoredTokens, holder: String)
        async throws(TokenRefreshError) -> StoredTokens
    {
        guard let refreshToken = stored.refreshToken else {
            try await store(identity) { () throws(StoreError) in
                try await accounts.releaseTokenRefresh(for: identity, holder: holder)
            }
            throw TokenRefreshError(
                .noRefreshToken,
                "expected a stored refresh token to renew an expired or rejected access token, found none",
                provider: identity.provider)
        }
        let result: RefreshResult
        do throws(SignInError) {
            result = try await operations.refresh(
                provider: identity.provider, refreshToken: refreshToken, subject: identity.subject,
                clientID: stored.clientID, dpopKey: stored.dpopKey)
        } catch {
            try await store(identity) { () throws(StoreError) in
                try await accounts.releaseTokenRefresh(for: identity, holder: holder)
            }
            throw TokenRefreshError(
                .refreshFailed, "expected the provider to refresh the tokens, found \(error.code)",
                provider: identity.provider, signInError: error)
        }
        // Whole seconds (`expires_in` is whole seconds too), so the expiry reads back from every store exactly.
        let receivedAt = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        var refreshed = StoredTokens(result.tokens, receivedAt: receivedAt)
        refreshed.refreshToken = result.refreshToken
        if refreshed.scope == nil { refreshed.scope = stored.scope }
        refreshed.clientID = stored.clientID
        refreshed.dpopKey = stored.dpopKey
        let written = refreshed
        try await store(identity) { () throws(StoreError) in
            do throws(StoreError) {
                try await accounts.completeTokenRefresh(written, for: identity, holder: holder)
            } catch {
                // The lease expired and another caller took it: the store keeps that caller's tokens; these,
                // just issued, still serve this call.
                guard error.code == .leaseLost else { throw error }
            }
        }
        return written
    }

    /// Whether the access token is present and not within ``Options/refreshMargin`` of its expiry (a token
    /// without a known expiry counts as usable until the provider rejects it).
    private func isUsable(_ tokens: StoredTokens) -> Bool {
        guard tokens.accessToken != nil else { return false }
        guard let expiry = tokens.accessTokenExpiresAt else { return true }
        return expiry.timeIntervalSince(clock.now()) > options.refreshMargin
    }

    private func noTokens(_ identity: IdentityKey) -> TokenRefreshError {
        TokenRefreshError(
            .noTokens, "expected stored tokens for the identity, found none", provider: identity.provider)
    }

    private func store<T>(_ identity: IdentityKey, _ body: () async throws(StoreError) -> T)
        async throws(TokenRefreshError) -> T
    {
        do {
            return try await body()
        } catch {
            throw TokenRefreshError(
                .storeFailed, "expected the account store to answer, found \(error.code)", provider: identity.provider,
                storeError: error)
        }
    }
}
