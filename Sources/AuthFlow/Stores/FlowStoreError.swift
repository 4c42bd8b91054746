/// Why a ``FlowStore`` operation failed.
public struct FlowStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The snake_case code.
        public let rawValue: String
        /// Wraps a code string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The store holds as many live records as it may; new flows are refused until some expire.
        public static let capacityExceeded = Code(rawValue: "capacity_exceeded")
        /// A record with the same state already exists (states are never reused).
        public static let duplicateState = Code(rawValue: "duplicate_state")
        /// Stored bytes are not a flow record.
        public static let invalidRecord = Code(rawValue: "invalid_record")
        /// The TTL is not a positive number of seconds.
        public static let invalidTTL = Code(rawValue: "invalid_ttl")
        /// The backend failed (connection, I/O).
        public static let backendFailure = Code(rawValue: "backend_failure")
    }

    /// The stable code.
    public let code: Code
    /// What was expected and what was found; never contains a state or record contents.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
