import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Sends one request to a provider and tells the observer how it went: the one transport of ``SignIn``,
/// ``TokenOperations`` and ``NativeSignIn``.
///
/// A transport failure (no HTTP answer) becomes `provider_unreachable` naming the endpoint and the provider;
/// any HTTP answer is returned for the caller to judge.
///
/// Given the grant's DPoP key, it proves possession on the request (RFC 9449): a ``DPoPProof`` in the `DPoP`
/// header, an `Authorization: Bearer` token presented as `Authorization: DPoP` with its hash in the proof
/// (`ath`), the server's latest nonce in the proof, and one retry with a fresh proof when the server answers
/// `use_dpop_nonce` with a `DPoP-Nonce` (§8, §9). A second challenge is returned as the answer, which the
/// caller refuses with the server's error code.
struct ProviderTransport: Sendable {
    let httpClient: any HTTPClient
    let clock: any WallClock
    let observer: any ProviderObserver
    /// A bound in seconds on each request; `nil` leaves the HTTP client's default.
    var requestTimeout: Double?
    /// The jti of each DPoP proof.
    var random: any SecureRandom = SystemRandom()
    /// The servers' latest DPoP nonces.
    var nonces = DPoPNonces()

    /// Sends `request` to `provider`'s `endpoint`, with a DPoP proof signed by `dpopKey` when given; `renew`
    /// rebuilds the request for the retry after a nonce challenge (a fresh client assertion).
    ///
    /// - Throws: ``SignInError`` with `provider_unreachable` when no answer came.
    func send(
        _ request: HTTPClientRequest, endpoint: ProviderRequestEndpoint, provider: String, dpopKey: JWK? = nil,
        renew: ((HTTPClientRequest) throws(SignInError) -> HTTPClientRequest)? = nil
    ) async throws(SignInError) -> HTTPClientResponse {
        guard let dpopKey else { return try await sendOnce(request, endpoint: endpoint, provider: provider) }
        var request = request
        var accessToken: String?
        if let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer ") {
            let token = String(authorization.dropFirst("Bearer ".count))
            accessToken = token
            request.headers["Authorization"] = "DPoP " + token
        }
        var response = try await sendProved(
            request, key: dpopKey, accessToken: accessToken, endpoint: endpoint, provider: provider)
        if DPoPProof.asksForNonce(response), response.headers["DPoP-Nonce"] != nil {
            // One retry with the nonce just given (remembered on receipt); a second challenge is the answer.
            if let renew { request = try renew(request) }
            response = try await sendProved(
                request, key: dpopKey, accessToken: accessToken, endpoint: endpoint, provider: provider)
        }
        return response
    }

    /// Signs a fresh proof (with the origin's latest nonce), sends, and remembers a nonce the answer gives.
    private func sendProved(
        _ request: HTTPClientRequest, key: JWK, accessToken: String?, endpoint: ProviderRequestEndpoint,
        provider: String
    ) async throws(SignInError) -> HTTPClientResponse {
        var request = request
        var proofError: SignInError
        do throws(SignInError) {
            request.headers["DPoP"] = try DPoPProof.make(
                for: request, key: key, accessToken: accessToken, nonce: nonces.nonce(for: request.url),
                now: clock.now(), random: random)
        } catch {
            proofError = error
            proofError.provider = provider
            throw proofError
        }
        return try await sendOnce(request, endpoint: endpoint, provider: provider)
    }

    private func sendOnce(_ request: HTTPClientRequest, endpoint: ProviderRequestEndpoint, provider: String)
        async throws(SignInError) -> HTTPClientResponse
    {
        var request = request
        if let requestTimeout { request.timeout = requestTimeout }
        let started = clock.now()
        do {
            let response = try await httpClient.send(request)
            // A server may hand out its next nonce in any answer (RFC 9449 §8.2), e.g. the pushed request's.
            if let nonce = response.headers["DPoP-Nonce"] { nonces.remember(nonce, for: request.url) }
            observer.providerRequestFinished(
                provider: provider, endpoint: endpoint, status: response.status,
                seconds: clock.now().timeIntervalSince(started))
            return response
        } catch {
            observer.providerRequestFinished(
                provider: provider, endpoint: endpoint, status: nil, seconds: clock.now().timeIntervalSince(started))
            let reason = (error as? HTTPClientError).map { "\($0.code)" } ?? "a transport failure"
            throw SignInError(
                .providerUnreachable, "expected a response from the \(endpoint.rawValue) endpoint, found \(reason)",
                provider: provider)
        }
    }
}
