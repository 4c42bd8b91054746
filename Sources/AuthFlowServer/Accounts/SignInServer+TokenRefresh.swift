public import AuthFlow

extension SignInServer {
    /// A `TokenRefresher` over this server's account store and providers, for the embedding backend: it
    /// returns a usable access token for a user's linked identity, refreshing it once however many requests
    /// or server instances ask at the same time (the account store's refresh lease decides).
    ///
    /// The refreshes go through the server's own token operations: they authenticate exactly as its sign-ins
    /// do, share its JWKS caches, are counted in its metrics and time out after 10 s (well inside the default
    /// lease).
    ///
    /// - Parameter options: the refresher's tunables (keep `TokenRefresher.Options.leaseDuration` above the
    ///   10 s request timeout).
    public func tokenRefresher(options: TokenRefresher.Options = .init()) -> TokenRefresher {
        TokenRefresher(
            accounts: context.stores.accounts, operations: context.tokenOperations, clock: context.clock,
            random: context.random, options: options)
    }
}
