/// An error from the sandbox's own API (registration, start-up, notifications).
///
/// Requests the emulated providers refuse are not errors of this type: they are answered with the
/// provider's own error response, as the real provider would.
public struct SandboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code to switch on.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text.
        package let rawValue: String
        /// Wraps a code's text.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        package var description: String { rawValue }

        /// A client registration is incomplete or inconsistent.
        package static let invalidClient = Code(rawValue: "invalid_client")
        /// No client with that id is registered for that provider.
        package static let unknownClient = Code(rawValue: "unknown_client")
        /// A request to the sandbox's API was malformed.
        package static let invalidRequest = Code(rawValue: "invalid_request")
        /// A signing or client key could not be generated or used.
        package static let keyFailure = Code(rawValue: "key_failure")
        /// The listener could not be started.
        package static let listenerFailed = Code(rawValue: "listener_failed")
        /// `start()` was called on a sandbox that is already running.
        package static let alreadyStarted = Code(rawValue: "already_started")
        /// A server-to-server notification could not be delivered.
        package static let notificationDeliveryFailed = Code(rawValue: "notification_delivery_failed")
    }

    /// What went wrong, as a stable code.
    package let code: Code
    /// What was expected and what was found; never contains a secret or token.
    package let message: String
    /// The provider concerned, when there is one.
    package var provider: SandboxProvider?
    /// The client id concerned, when there is one.
    package var clientID: String?

    /// Creates an error.
    package init(code: Code, message: String, provider: SandboxProvider? = nil, clientID: String? = nil) {
        self.code = code
        self.message = message
        self.provider = provider
        self.clientID = clientID
    }

    /// `code: message`, plus the provider and client id when known.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let provider { text += " (provider \(provider.rawValue)" + (clientID.map { ", client_id \($0))" } ?? ")") }
        return text
    }
}
