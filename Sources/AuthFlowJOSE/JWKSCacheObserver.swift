/// Why a ``JWKSCache`` fetched its provider's key set.
package enum JWKSFetchReason: String, Sendable, Hashable, CaseIterable {
    /// Nothing was cached yet.
    case cold
    /// A token named a key the cached set does not have.
    case unknownKid = "unknown_kid"
    /// The cached set's lifetime ran out.
    case expired
}

/// What a ``JWKSCache`` reports about its fetches, for metrics. Called on the cache's actor: keep it quick.
package protocol JWKSCacheObserver: Sendable {
    /// A fetch of the key set started.
    func jwksFetchStarted(reason: JWKSFetchReason)
    /// An older key set was served because a refetch failed (or a failed one is being backed off).
    func jwksStaleServed()
}

/// A ``JWKSCacheObserver`` that ignores everything (the default).
package struct NoJWKSCacheObserver: JWKSCacheObserver {
    /// Creates the observer.
    package init() {}
    /// Ignores the fetch.
    package func jwksFetchStarted(reason: JWKSFetchReason) {}
    /// Ignores the stale read.
    package func jwksStaleServed() {}
}
