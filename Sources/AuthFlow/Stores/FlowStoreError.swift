/// Why a ``FlowStore`` operation failed.
public struct FlowStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// The snake_case code.
        public let rawValue: String
        /// Wraps a code string.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The store holds as many live spent states as it may; callbacks are refused until some expire.
        public static let capacityExceeded = Code(rawValue: "capacity_exceeded")
        /// Bytes are not a flow record (``FlowRecord/init(serialized:)``).
        public static let invalidRecord = Code(rawValue: "invalid_record")
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
