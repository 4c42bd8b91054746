package import AuthFlowJSON

/// An error from the sandbox's own API (registration, start-up, notifications).
///
/// Requests the emulated providers refuse are not errors of this type: they are answered with the
/// provider's own error response, as the real provider would.
public struct SandboxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code to switch on.
    package typealias Code = ErrorCode<SandboxError>

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

extension ErrorCode where Domain == SandboxError {
    /// A client registration is incomplete or inconsistent.
    package static var invalidClient: Self { Self(rawValue: "invalid_client") }
    /// No client with that id is registered for that provider.
    package static var unknownClient: Self { Self(rawValue: "unknown_client") }
    /// A request to the sandbox's API was malformed.
    package static var invalidRequest: Self { Self(rawValue: "invalid_request") }
    /// A signing or client key could not be generated or used.
    package static var keyFailure: Self { Self(rawValue: "key_failure") }
    /// The listener could not be started.
    package static var listenerFailed: Self { Self(rawValue: "listener_failed") }
    /// `start()` was called on a sandbox that is already running.
    package static var alreadyStarted: Self { Self(rawValue: "already_started") }
    /// A server-to-server notification could not be delivered.
    package static var notificationDeliveryFailed: Self { Self(rawValue: "notification_delivery_failed") }
}
