public import AuthFlowHTTP

/// What a plugin makes of a verified event: the actions to apply, the idempotency key they are applied
/// once under, and the HTTP answer for each disposition.
public struct ProviderEventOutcome: Sendable {
    /// The key the actions are applied once under (e.g. a JWS `jti`); the server prefixes it with the provider
    /// name. `nil` applies nothing (the actions must then be empty).
    package var idempotencyKey: String?
    /// The effects, applied in order (see ``ProviderEventAction``).
    package var actions: [ProviderEventAction]
    /// A short description for the server log (an event type, never a subject, token or email).
    package var summary: String
    /// The response to give, once the server knows what became of the event.
    package var respond: @Sendable (ProviderEventDisposition) -> HTTPServerResponse

    /// Creates an outcome.
    public init(
        idempotencyKey: String?, actions: [ProviderEventAction], summary: String,
        respond: @escaping @Sendable (ProviderEventDisposition) -> HTTPServerResponse
    ) {
        self.idempotencyKey = idempotencyKey
        self.actions = actions
        self.summary = summary
        self.respond = respond
    }

    /// An outcome that applies nothing and always gives `response`.
    package static func respond(_ response: HTTPServerResponse, summary: String) -> ProviderEventOutcome {
        ProviderEventOutcome(idempotencyKey: nil, actions: [], summary: summary) { _ in response }
    }
}
