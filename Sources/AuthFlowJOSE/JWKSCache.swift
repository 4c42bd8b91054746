import Foundation

/// A provider's JWK Set, cached by `kid`, refreshed on expiry and on unknown keys.
///
/// - The TTL is the response's `max-age`, clamped to `[minimumTTL, maximumTTL]`
///   (`defaultTTL` when there is none).
/// - A token with an unknown `kid` (or, without `kid`, no fitting key) triggers one refetch and
///   one retry, at most once per `refetchInterval`, however many such tokens arrive; this retry lives
///   here only (``verification(of:with:)``), for every caller.
/// - While the endpoint fails, the last good set keeps being served for at most `maximumStaleness`
///   seconds past its expiry; new attempts are spaced by `refetchInterval`. With no good set yet, or
///   one older than that bound, ``keySet()`` throws `.jwksUnavailable` (a provider that rotated its keys
///   out because one leaked must not stay trusted forever by an instance that cannot reach it).
/// - Fetched sets are public-key only: `oct` keys are skipped, unknown key types are skipped.
/// - Concurrent callers share one fetch.
///
/// The fetch closure does the I/O, so this type has no HTTP dependency.
package actor JWKSCache {
    private let clock: any WallClock
    private let minimumTTL: Double
    private let maximumTTL: Double
    private let defaultTTL: Double
    private let refetchInterval: Double
    private let maximumStaleness: Double
    private let fetch: @Sendable () async throws -> JWKSFetchResult
    private let observer: any JWKSCacheObserver

    private var current: JWKSet?
    private var expiresAt: Date = .distantPast
    private var lastAttempt: Date?
    private var lastAttemptFailed = false
    private var lastUnknownKeyRefetch: Date?
    private var inFlight: Task<JWKSet, any Error>?

    /// How many times the fetch closure has been called (for tests and diagnostics).
    package private(set) var fetchCount = 0

    /// How long past its expiry a cached set is served while the endpoint fails: 24 hours.
    package static let defaultMaximumStaleness: Double = 86_400

    /// Creates an empty cache; nothing is fetched until a key set is needed.
    package init(
        clock: any WallClock, minimumTTL: Double = 60, maximumTTL: Double = 86_400, defaultTTL: Double = 300,
        refetchInterval: Double = 10, maximumStaleness: Double = JWKSCache.defaultMaximumStaleness,
        fetch: @escaping @Sendable () async throws -> JWKSFetchResult
    ) {
        self.init(
            clock: clock, minimumTTL: minimumTTL, maximumTTL: maximumTTL, defaultTTL: defaultTTL,
            refetchInterval: refetchInterval, maximumStaleness: maximumStaleness, observer: NoJWKSCacheObserver(),
            fetch: fetch)
    }

    /// Creates an empty cache whose `observer` hears of every fetch (with its reason) and every stale set
    /// served: the server's metrics.
    package init(
        clock: any WallClock, minimumTTL: Double = 60, maximumTTL: Double = 86_400, defaultTTL: Double = 300,
        refetchInterval: Double = 10, maximumStaleness: Double = JWKSCache.defaultMaximumStaleness,
        observer: any JWKSCacheObserver,
        fetch: @escaping @Sendable () async throws -> JWKSFetchResult
    ) {
        self.observer = observer
        self.clock = clock
        self.minimumTTL = minimumTTL
        self.maximumTTL = max(maximumTTL, minimumTTL)
        self.defaultTTL = defaultTTL
        self.refetchInterval = refetchInterval
        self.maximumStaleness = max(0, maximumStaleness)
        self.fetch = fetch
    }

    /// The cached set, fetching it when absent or expired.
    /// - Throws: `JOSEError` `.jwksUnavailable` when the fetch fails (or returns an unusable
    ///   document), or failed within `refetchInterval`, and no earlier set is cached.
    package func keySet() async throws(JOSEError) -> JWKSet {
        try await currentSet().keys
    }

    /// The cached set and whether obtaining it was a fetch (not a cache hit).
    private func currentSet() async throws(JOSEError) -> (keys: JWKSet, fetched: Bool) {
        let now = clock.now()
        if let current {
            if now < expiresAt { return (current, false) }
            if lastAttemptFailed, let lastAttempt, now.timeIntervalSince(lastAttempt) < refetchInterval,
                isUsableWhenStale(now)
            {
                observer.jwksStaleServed()
                return (current, false)
            }
        } else if inFlight == nil, lastAttemptFailed, let lastAttempt,
            now.timeIntervalSince(lastAttempt) < refetchInterval
        {
            throw JOSEError(
                .jwksUnavailable,
                "expected a JWK Set from the provider, but the last fetch failed less than "
                    + "\(Int(refetchInterval)) s ago and no earlier set is cached")
        }
        return (try await refresh(reason: current == nil ? .cold : .expired), true)
    }

    /// Verifies `token` with the cached set; on `.keyNotFound` refetches (rate-limited) and retries once.
    /// Claims are checked at the cache's clock time.
    /// - Throws: `JOSEError`, as ``verification(of:with:)`` reports it.
    package func verify(_ token: String, with verifier: JWTVerifier) async throws(JOSEError) -> JWTClaims {
        try await verification(of: token, with: verifier).result.get()
    }

    /// Verifies `token` with the cached set and says where its keys came from: the one verification path
    /// of tokens signed with this provider's keys.
    ///
    /// A token naming a key the set lacks (`.keyNotFound`; without `kid`, no fitting key) makes the cache
    /// refetch and retry once, when the cached set still lacks the key and no such refetch happened within
    /// `refetchInterval`, however many such tokens arrive; otherwise the retry uses the cached set (a
    /// concurrent caller may already have refetched it). Claims are checked at the cache's clock time.
    /// Never throws: `.jwksUnavailable` in ``JWKSVerification/result`` when no set can be had.
    package func verification(of token: String, with verifier: JWTVerifier) async -> JWKSVerification {
        let first: (keys: JWKSet, fetched: Bool)
        do throws(JOSEError) {
            first = try await currentSet()
        } catch {
            return JWKSVerification(result: .failure(error), keySource: nil, keyCount: 0)
        }
        let source: JWKSVerification.KeySource = first.fetched ? .fetched : .cached
        let claims = Result { () throws(JOSEError) in try verifier.verify(token, keys: first.keys, now: clock.now()) }
        guard case .failure(let error) = claims, error.code == .keyNotFound else {
            return JWKSVerification(result: claims, keySource: source, keyCount: first.keys.keys.count)
        }
        let retry: (keys: JWKSet, fetched: Bool)
        do throws(JOSEError) {
            retry = try await setAfterUnknownKey(error.keyID)
        } catch {
            return JWKSVerification(result: .failure(error), keySource: source, keyCount: first.keys.keys.count)
        }
        let retried = Result { () throws(JOSEError) in try verifier.verify(token, keys: retry.keys, now: clock.now()) }
        return JWKSVerification(
            result: retried, keySource: retry.fetched ? .refetchedForUnknownKey : source,
            keyCount: retry.keys.keys.count)
    }

    /// The key set after a token named a key the cached set lacks: refetched when the cached set still has no
    /// key `keyID` (or `keyID` is `nil`), at most once per `refetchInterval`; otherwise the cached set.
    private func setAfterUnknownKey(_ keyID: String?) async throws(JOSEError) -> (keys: JWKSet, fetched: Bool) {
        let current = try await currentSet()
        if let keyID, current.keys.keys.contains(where: { $0.keyID == keyID }) { return current }
        let now = clock.now()
        if let last = lastUnknownKeyRefetch, now.timeIntervalSince(last) < refetchInterval { return current }
        lastUnknownKeyRefetch = now
        return (try await refresh(reason: .unknownKid), true)
    }

    private func refresh(reason: JWKSFetchReason) async throws(JOSEError) -> JWKSet {
        if let inFlight { return try await outcome(of: inFlight, storing: false) }
        observer.jwksFetchStarted(reason: reason)
        let fetch = self.fetch
        let task = Task<JWKSet, any Error> {
            let result = try await fetch()
            let json = try JOSEError.parsingJSON { () throws(JSONError) in try JSONValue.parse(result.body) }
            var set = try JWKSet(json: json, publicKeysOnly: true)
            set.maxAge = result.maxAge
            return set
        }
        inFlight = task
        fetchCount += 1
        lastAttempt = clock.now()
        defer { inFlight = nil }
        return try await outcome(of: task, storing: true)
    }

    private func outcome(of task: Task<JWKSet, any Error>, storing: Bool) async throws(JOSEError) -> JWKSet {
        do {
            let set = try await task.value
            if storing {
                let ttl = min(max(set.maxAge.map(Double.init) ?? defaultTTL, minimumTTL), maximumTTL)
                current = set
                expiresAt = clock.now().addingTimeInterval(ttl)
                lastAttemptFailed = false
            }
            return set
        } catch {
            if storing { lastAttemptFailed = true }
            if let current, isUsableWhenStale(clock.now()) {
                if storing { observer.jwksStaleServed() }
                return current
            }
            let reason = Self.reason(error)
            let cached = current == nil ? "no earlier set is cached" : "the cached set is past its staleness bound"
            throw JOSEError(.jwksUnavailable, "expected a JWK Set from the provider, but \(reason) and \(cached)")
        }
    }

    /// Why a fetch gave no set, for the error: an unusable document's code, or the fetch's own error when it
    /// describes itself (the HTTP client's `tls_failure: …`, `connection_failed: …` or a status the
    /// endpoint answered with), so a broken certificate chain is not reported as an unexplained failure.
    static func reason(_ error: any Error) -> String {
        if let error = error as? JOSEError { return "the document was unusable (\(error.code))" }
        // Through `Any`: a cast straight from `any Error` is taken for one that always succeeds.
        if let described = (error as Any) as? any CustomStringConvertible {
            return "the fetch failed (\(described.description))"
        }
        return "the fetch failed"
    }

    /// Whether the cached set may still be served at `now` although a refresh failed.
    private func isUsableWhenStale(_ now: Date) -> Bool {
        now.timeIntervalSince(expiresAt) < maximumStaleness
    }
}

/// The outcome of verifying a token through a provider's key cache (the package's `JWKSCache`): the claims or
/// the refusal, and where the keys came from (for a trace).
package struct JWKSVerification: Sendable {
    /// Where the key set a verification used came from.
    package enum KeySource: Sendable, Hashable {
        /// The cached set, no fetch.
        case cached
        /// Fetched because none was cached or the cached one expired.
        case fetched
        /// Refetched because the token named a key the cached set lacked.
        case refetchedForUnknownKey
    }

    /// The verified claims, or the `JOSEError` (`.jwksUnavailable` when no key set could be had).
    package let result: Result<JWTClaims, JOSEError>
    /// Where the keys came from; `nil` when no key set could be had.
    package let keySource: KeySource?
    /// How many keys the set used last held.
    package let keyCount: Int

    /// Creates an outcome (the cache makes these; a test of a driver may too).
    package init(result: Result<JWTClaims, JOSEError>, keySource: KeySource?, keyCount: Int) {
        self.result = result
        self.keySource = keySource
        self.keyCount = keyCount
    }
}
