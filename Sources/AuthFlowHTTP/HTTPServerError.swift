public import AuthFlowJSON

/// Why the server could not start, or why a request's body could not be read as asked.
public struct HTTPServerError: CodedError, Sendable, Equatable {
    /// A stable identifier for the kind of failure.
    public typealias Code = ErrorCode<HTTPServerError>

    /// What went wrong.
    public let code: Code
    /// What was expected and what was found.
    public let message: String

    /// An error with the given code and message.
    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == HTTPServerError {
    /// The configuration is unusable (host not a literal IP address, port or limit out of range).
    package static var invalidConfiguration: Self { Self(rawValue: "invalid_configuration") }
    /// The listener could not be started (port in use, permission denied).
    package static var startFailed: Self { Self(rawValue: "start_failed") }
    /// `start()` was called on a running server.
    package static var alreadyRunning: Self { Self(rawValue: "already_running") }
    /// The request body has another media type than the one asked for.
    package static var unsupportedMediaType: Self { Self(rawValue: "unsupported_media_type") }
}
