/// How a provider's server-to-server events (Apple's notifications, Facebook's data deletion, Google RISC,
/// back-channel logout) are received: the endpoints under `/auth/{name}/` and the handling of one request.
public protocol ProviderEventHandling: Sendable {
    /// The endpoints under `/auth/{name}/` where the provider sends its events.
    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint]

    /// Verifies one request to a declared event endpoint and turns it into account actions, the idempotency
    /// key they are applied once under, and the answer. Verify everything before returning: the server
    /// applies what is returned.
    ///
    /// - Throws: ``ProviderEventError`` when the request is refused (nothing is applied).
    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext) async throws(ProviderEventError)
        -> ProviderEventOutcome
}
