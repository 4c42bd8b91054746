/// Every problem found in a configuration, reported together rather than one at a time.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in source order (problems without a position first).
    public let issues: [ConfigurationIssue]

    /// What the file said as far as it could be read despite the issues (a provider whose section had a
    /// problem may be missing or incomplete), so a checker can also resolve it and report every problem in
    /// one run; `nil` when nothing usable was read or the problem came later than reading. Not part of
    /// equality.
    package var readable: Configuration? {
        get { partial.configuration }
        set { partial = Partial(configuration: newValue) }
    }
    /// ``readable``, kept out of the synthesized equality and hash.
    private var partial: Partial

    /// Wraps issues, ordering them by position.
    package init(issues: [ConfigurationIssue], readable: Configuration? = nil) {
        self.partial = Partial(configuration: readable)
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

extension ConfigurationError {
    /// What the file said as far as it could be read: equal to any other, so two errors are equal when their
    /// issues are.
    private struct Partial: Sendable, Hashable {
        let configuration: Configuration?

        static func == (lhs: Partial, rhs: Partial) -> Bool { true }

        func hash(into hasher: inout Hasher) {}
    }
}
