/// Why the server could not start, or why a request's body could not be read as asked.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable identifier for the kind of failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's text, e.g. `bind_failed`.
        public let rawValue: String
        /// A code with the given text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// The configuration is unusable (host not a literal IP address, port or limit out of range).
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// The listener could not be started (port in use, permission denied).
        public static let startFailed = Code(rawValue: "start_failed")
        /// `start()` was called on a running server.
        public static let alreadyRunning = Code(rawValue: "already_running")
        /// The request body has another media type than the one asked for.
        public static let unsupportedMediaType = Code(rawValue: "unsupported_media_type")
    }

    /// What went wrong.
    public let code: Code
    /// What was expected and what was found.
    public let message: String

    /// An error with the given code and message.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
