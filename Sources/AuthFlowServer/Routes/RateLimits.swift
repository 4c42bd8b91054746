import AuthFlow
import AuthFlowHTTP

/// What a rate limit counts.
enum RateLimitKind: String {
    /// Sign-in starts.
    case start
    /// Callbacks.
    case callback
}

extension ServerRoute {
    /// Takes a token from the client address's bucket of `kind`; an IPv6 client's bucket is its network's
    /// (``Options/ipv6ClientPrefix``), whatever text its address came in.
    ///
    /// - Throws: ``ServerError`` `rate_limited` (429, with ``ServerError/retryAfter``) when the bucket is
    ///   empty; `store_unavailable` (503) when the rate-limit store fails.
    func checkRateLimit(_ request: HTTPServerRequest, kind: RateLimitKind) async throws(ServerError) {
        guard let limits = options.rateLimits else { return }
        let rule = kind == .start ? limits.starts : limits.callbacks
        let client =
            request.remoteAddress.isEmpty
            ? "unknown" : IPNetwork.clientKey(request.remoteAddress, ipv6Prefix: options.ipv6ClientPrefix)
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
