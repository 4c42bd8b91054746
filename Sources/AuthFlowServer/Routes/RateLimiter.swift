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
        let client =
            request.remoteAddress.isEmpty
            ? "unknown" : IPNetwork.clientKey(request.remoteAddress, ipv6Prefix: ipv6Prefix)
        let decision: RateLimitDecision
        do throws(StoreError) {
            decision = try await stores.rateLimits.consume(
                key: "\(kind.rawValue):\(client)", capacity: rule.burst, refillPerSecond: rule.perMinute / 60)
        } catch {
            throw ServerError(error, while: "check the rate limit")
        }
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
