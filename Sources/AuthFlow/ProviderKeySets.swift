public import AuthFlowHTTP
public import AuthFlowJOSE

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
        var caches: [String: JWKSCache] = [:]
        for provider in providers {
            guard let url = provider.endpoints.jwks else { continue }
            caches[provider.name] = JWKSCache(clock: clock) { [httpClient] in
                try await Self.fetch(url: url, httpClient: httpClient)
            }
        }
        self.caches = caches
    }

    /// The cache of the provider named `name`, or `nil` when it has no `jwks` endpoint.
    public subscript(name: String) -> JWKSCache? { caches[name] }

    /// Verifies a compact JWS signed with the keys of the provider named `provider`, refetching once on an
    /// unknown `kid` (rate-limited), and checks its claims with `verifier`: the one verification path of
    /// id_tokens (sign-in, refresh) and signed provider events.
    ///
    /// - Throws: `JOSEError`; `.jwksUnavailable` when the provider has no `jwks` endpoint.
    public func verify(_ token: String, provider: String, with verifier: JWTVerifier) async throws(JOSEError)
        -> JWTClaims
    {
        guard let cache = caches[provider] else {
            throw JOSEError(.jwksUnavailable, "expected a JWKS endpoint for the provider, found none")
        }
        return try await cache.verify(token, with: verifier)
    }

    static func fetch(url: String, httpClient: any HTTPClient) async throws -> JWKSFetchResult {
        var request = HTTPClientRequest(method: "GET", url: url)
        request.headers["Accept"] = "application/json"
        request.timeout = 10
        let response = try await httpClient.send(request)
        guard (200..<300).contains(response.status) else {
            throw SignInError(.jwksUnavailable, "expected HTTP 2xx from the JWKS endpoint, found \(response.status)")
        }
        return JWKSFetchResult(body: response.body, cacheControl: response.headers["Cache-Control"])
    }
}
