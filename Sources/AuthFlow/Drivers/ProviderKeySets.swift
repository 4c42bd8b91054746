public import AuthFlowHTTP
public import AuthFlowJOSE
import Foundation

/// The JWKS caches of a set of resolved providers: one per OpenID Connect provider with a `jwks`
/// endpoint, fetched through one HTTP client.
///
/// Share one value between ``SignIn``, ``TokenOperations`` and whatever else verifies a provider's
/// tokens (a server verifying Apple's notifications), so each provider's keys are fetched and cached
/// once, and a key rotation seen by one is seen by all.
public struct ProviderKeySets: Sendable {
    private let caches: [String: JWKSCache]

    /// Creates a cache for each provider of `providers` that has a `jwks` endpoint (nothing is fetched until a
    /// token needs it; signed provider events use the cache even with `oidc` off).
    public init(providers: [ResolvedProvider], httpClient: any HTTPClient, clock: any WallClock = SystemClock()) {
        self.init(providers: providers, httpClient: httpClient, clock: clock, observer: NoProviderObserver())
    }

    /// Creates the caches with an `observer` that hears of every JWKS fetch (its reason, duration and status)
    /// and every stale set served: the server's metrics.
    package init(
        providers: [ResolvedProvider], httpClient: any HTTPClient, clock: any WallClock = SystemClock(),
        observer: any ProviderObserver
    ) {
        var caches: [String: JWKSCache] = [:]
        for provider in providers {
            guard let url = provider.endpoints.jwks else { continue }
            let name = provider.name
            caches[name] = JWKSCache(
                clock: clock, observer: ProviderJWKSObserver(provider: name, observer: observer)
            ) { [httpClient] in
                let started = clock.now()
                var status: Int?
                defer {
                    observer.providerRequestFinished(
                        provider: name, endpoint: .jwks, status: status,
                        seconds: clock.now().timeIntervalSince(started))
                }
                let response = try await Self.send(url: url, httpClient: httpClient)
                status = response.status
                return try Self.result(of: response)
            }
        }
        self.caches = caches
    }

    /// The cache of the provider named `name`, or `nil` when it has no `jwks` endpoint.
    package subscript(name: String) -> JWKSCache? { caches[name] }

    /// Verifies a compact JWS signed with the keys of the provider named `provider`, refetching once on an
    /// unknown `kid` (rate-limited), and checks its claims with `verifier`: the one verification path of
    /// id_tokens (sign-in, native sign-in, refresh) and signed provider events.
    ///
    /// - Throws: `JOSEError`; `.jwksUnavailable` when the provider has no `jwks` endpoint.
    public func verify(_ token: String, provider: String, with verifier: JWTVerifier) async throws(JOSEError)
        -> JWTClaims
    {
        try await verification(of: token, provider: provider, with: verifier).result.get()
    }

    /// ``verify(_:provider:with:)`` with where the keys came from, for a trace (``JWKSCache/verification(of:with:)``).
    ///
    /// A provider without a `jwks` endpoint gives `.jwksUnavailable` and no key source.
    public func verification(of token: String, provider: String, with verifier: JWTVerifier) async
        -> JWKSVerification
    {
        guard let cache = caches[provider] else {
            return JWKSVerification(
                result: .failure(JOSEError(.jwksUnavailable, "expected a JWKS endpoint for the provider, found none")),
                keySource: nil, keyCount: 0)
        }
        return await cache.verification(of: token, with: verifier)
    }

    static func send(url: String, httpClient: any HTTPClient) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(method: "GET", url: url)
        request.headers["Accept"] = "application/json"
        request.timeout = 10
        return try await httpClient.send(request)
    }

    static func result(of response: HTTPClientResponse) throws -> JWKSFetchResult {
        guard (200..<300).contains(response.status) else {
            throw SignInError(.jwksUnavailable, "expected HTTP 2xx from the JWKS endpoint, found \(response.status)")
        }
        return JWKSFetchResult(body: response.body, cacheControl: response.headers["Cache-Control"])
    }
}
