import AuthFlow
import AuthFlowHTTP

/// What a rate limit counts.
enum RateLimitKind: String {
    /// Sign-in starts.
    case start
    /// Callbacks.
    case callback
}

/// The rate limiter of sign-in starts and callbacks (`server.rate_limits`): a token bucket per client address in
/// the rate-limit store. Built once per server.
struct RateLimiter: Sendable {
    /// The rules; `nil` turns rate limiting off.
    let rules: RateLimitSettings?
    /// The prefix an IPv6 client's bucket is keyed by (``SignInServer/Options/ipv6ClientPrefix``).
    let ipv6Prefix: Int
    let stores: SignInServer.Stores
    let logger: any ServerLogger

    /// Takes a token from the client address's bucket of `kind`; an IPv6 client's bucket is its network's
    /// (``ipv6Prefix``), whatever text its address came in.
    ///
    /// - Throws: ``ServerError`` `rate_limited` (429, with ``ServerError/retryAfter``) when the bucket is
    ///   empty; `store_unavailable` (503) when the rate-limit store fails.
    func check(_ request: HTTPServerRequest, kind: RateLimitKind) async throws(ServerError) {
        guard let limits = rules else { return }
        let rule = kind == .start ? limits.starts : limits.callbacks
        let decision: RateLimitDecision
        do throws(StoreError) {
            decision = try await stores.rateLimits.consume(
                key: key(request, kind: kind), capacity: rule.burst, refillPerSecond: rule.perMinute / 60)
        } catch {
            throw ServerError(error, while: "check the rate limit")
        }
        try enforce(decision, rule: rule, kind: kind)
    }

    /// Whether ``checkAtOnce(_:kind:)`` decides: rate limiting is off, or the buckets are in this process's memory
    /// (a shared store is a round trip).
    var decidesAtOnce: Bool { rules == nil || stores.rateLimits is InMemoryRateLimitStore }

    /// ``check(_:kind:)`` without waiting, the same decision from the same buckets, when ``decidesAtOnce``.
    ///
    /// - Throws: as `check`; `store_unavailable` (503) when the buckets are not in memory after all.
    func checkAtOnce(_ request: HTTPServerRequest, kind: RateLimitKind) throws(ServerError) {
        guard let limits = rules else { return }
        guard let buckets = stores.rateLimits as? InMemoryRateLimitStore else {
            throw ServerError(
                .storeUnavailable, "expected the rate limits in memory to decide at once, found a shared store",
                status: 503)
        }
        let rule = kind == .start ? limits.starts : limits.callbacks
        let decision: RateLimitDecision
        do throws(StoreError) {
            decision = try buckets.consume(
                key: key(request, kind: kind), capacity: rule.burst, refillPerSecond: rule.perMinute / 60)
        } catch {
            throw ServerError(error, while: "check the rate limit")
        }
        try enforce(decision, rule: rule, kind: kind)
    }

    /// The bucket of `request`'s client address for `kind`.
    private func key(_ request: HTTPServerRequest, kind: RateLimitKind) -> String {
        let client =
            request.remoteAddress.isEmpty
            ? "unknown" : IPNetwork.clientKey(request.remoteAddress, ipv6Prefix: ipv6Prefix)
        return "\(kind.rawValue):\(client)"
    }

    /// `rate_limited` (429) when `decision` took no token.
    private func enforce(_ decision: RateLimitDecision, rule: RateLimitSettings.Rule, kind: RateLimitKind)
        throws(ServerError)
    {
        guard decision.allowed else {
            let wait = max(1, Int(decision.retryAfter.rounded(.up)))
            logger.log(.warning, "rate limited", metadata: ["kind": kind.rawValue])
            var error = ServerError(
                .rateLimited,
                "expected at most \(Int(rule.perMinute)) sign-in \(kind.rawValue)s a minute from one address "
                    + "(bursts of \(Int(rule.burst))), found more; retry in \(wait) s",
                status: 429)
            error.retryAfter = wait
            throw error
        }
    }
}
