/// Every problem found in a configuration, reported together rather than one at a time.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in source order (problems without a position first).
    public let issues: [ConfigurationIssue]

    /// Wraps issues, ordering them by position.
    public init(issues: [ConfigurationIssue]) {
        self.issues = issues.enumerated().sorted { left, right in
            let l = left.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            let r = right.element.location.map { ($0.line, $0.column) } ?? (0, 0)
            return l != r ? l < r : left.offset < right.offset
        }.map(\.element)
    }

    /// Each issue rendered (see ``ConfigurationIssue/description``), one after another.
    public var description: String {
        issues.map(\.description).joined(separator: "\n")
    }
}
