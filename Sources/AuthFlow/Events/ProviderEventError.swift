public import AuthFlowHTTP

/// A provider event that was refused (forged, malformed, for another client) or could not be handled.
///
/// Nothing is applied when a plugin throws it. The server answers with the given `response` when the
/// provider's protocol fixes the error body (Google RISC's `{"err", "description"}`), otherwise its own
/// `{"error": code, "message"}` with the given `status`.
public struct ProviderEventError: Error, Sendable {
    /// Why the event was refused, snake_case (e.g. `invalid_event`).
    public let code: String
    /// What was expected and what was found; never echoes a token, signature or subject.
    public let message: String
    /// The HTTP status, 400 unless the request was refused for another reason.
    package let status: Int
    /// The exact response to give, when the provider's protocol prescribes one.
    package let response: HTTPServerResponse?

    /// Creates an error.
    public init(
        code: String = "invalid_event", _ message: String, status: Int = 400, response: HTTPServerResponse? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.response = response
    }

    /// `store_unavailable` (503): an account-store read failed while handling the event.
    package static func storeUnavailable(_ error: StoreError) -> ProviderEventError {
        ProviderEventError(
            code: "store_unavailable", "expected the account store to answer, found \(error.code.rawValue)",
            status: 503)
    }
}
