import AuthFlowHTTP
import Foundation

/// Sends one request to a provider and tells the observer how it went: the one transport of ``SignIn``,
/// ``TokenOperations`` and ``NativeSignIn``.
///
/// A transport failure (no HTTP answer) becomes `provider_unreachable` naming the endpoint and the provider;
/// any HTTP answer is returned for the caller to judge.
struct ProviderTransport: Sendable {
    let httpClient: any HTTPClient
    let clock: any WallClock
    let observer: any ProviderObserver
    /// A bound in seconds on each request; `nil` leaves the HTTP client's default.
    var requestTimeout: Double?

    /// Sends `request` to `provider`'s `endpoint`.
    ///
    /// - Throws: ``SignInError`` with `provider_unreachable` when no answer came.
    func send(_ request: HTTPClientRequest, endpoint: ProviderRequestEndpoint, provider: String)
        async throws(SignInError) -> HTTPClientResponse
    {
        var request = request
        if let requestTimeout { request.timeout = requestTimeout }
        let started = clock.now()
        do {
            let response = try await httpClient.send(request)
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
