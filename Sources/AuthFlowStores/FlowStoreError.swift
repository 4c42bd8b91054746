public import AuthFlowJSON

/// Why a ``FlowStore`` operation failed.
public struct FlowStoreError: CodedError, Sendable, Equatable {
    /// A stable error code.
    public typealias Code = ErrorCode<FlowStoreError>

    /// The stable code.
    public let code: Code
    /// What was expected and what was found; never contains a state or record contents.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}

extension ErrorCode where Domain == FlowStoreError {
    /// The store holds as many live spent states as it may; callbacks are refused until some expire.
    package static var capacityExceeded: Self { Self(rawValue: "capacity_exceeded") }
    /// Bytes are not a flow record (the core's `FlowRecord(serialized:)`).
    package static var invalidRecord: Self { Self(rawValue: "invalid_record") }
    /// The backend failed (connection, I/O).
    package static var backendFailure: Self { Self(rawValue: "backend_failure") }
}
