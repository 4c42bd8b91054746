package import AuthFlowJSON

/// Why a metric could not be registered or observed.
package struct MetricsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable snake_case error code.
    package typealias Code = ErrorCode<MetricsError>

    /// The stable code.
    package let code: Code
    /// What was expected and what was found.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    package var description: String { "\(code.rawValue): \(message)" }
}

extension ErrorCode where Domain == MetricsError {
    /// A metric or label name is not `[a-zA-Z_:][a-zA-Z0-9_:]*` (labels: no `:`, no `__` prefix).
    package static var invalidName: Self { Self(rawValue: "invalid_name") }
    /// A metric of that name is already registered.
    package static var duplicateName: Self { Self(rawValue: "duplicate_name") }
    /// A series was given a different number of label values than the family has label names.
    package static var labelCountMismatch: Self { Self(rawValue: "label_count_mismatch") }
    /// Histogram bounds are empty, not finite, or not strictly ascending.
    package static var invalidBuckets: Self { Self(rawValue: "invalid_buckets") }
}
