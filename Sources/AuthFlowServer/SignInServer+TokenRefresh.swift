public import AuthFlow

extension SignInServer {
    /// A `TokenRefresher` over this server's account store and providers, for the embedding backend: it
    /// returns a usable access token for a user's linked identity, refreshing it once however many requests
    /// or server instances ask at the same time (the account store's refresh lease decides).
    ///
    /// The refreshes authenticate exactly as this server's sign-ins do and share its JWKS caches.
    ///
    /// - Parameter options: the refresher's tunables (keep `TokenRefresher.Options.leaseDuration` above the
    ///   HTTP client's timeout).
    public func tokenRefresher(options: TokenRefresher.Options = .init()) -> TokenRefresher {
        let operations = TokenOperations(
            providers: providerNames.compactMap { providers[$0] }, httpClient: httpClient, clock: clock,
            options: signIn.options, keySets: keySets)
        return TokenRefresher(
            accounts: stores.accounts, operations: operations, clock: clock, random: random, options: options)
    }
}
