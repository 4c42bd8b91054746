public import AuthFlowJSON

internal import AuthFlowYAML

/// One problem found in a configuration: what is wrong and where.
///
/// Rendered like a compiler diagnostic: `file:line:column: message`, the source line, a caret.
/// Messages never contain a secret, a file's contents or a value read from the environment.
public struct ConfigurationIssue: Sendable, Hashable, CustomStringConvertible {
    /// A stable identifier of the kind of problem. Other modules may add their own with `init(rawValue:)`.
    public typealias Code = ErrorCode<ConfigurationIssue>

    /// The kind of problem.
    public let code: Code
    /// What was expected and what was found.
    public let message: String
    /// Where, when the problem has a position (an unreadable configuration file has none).
    public let location: SourceLocation?

    /// Creates an issue; the core uses this to report provider problems at the locations kept in
    /// ``ProviderSettings``.
    public init(code: Code, message: String, location: SourceLocation?) {
        self.code = code
        self.message = message
        self.location = location
    }

    /// `file:line:column: message`, the source line and a caret; `file: message` without a line.
    public var description: String {
        guard let location else { return message }
        return YAMLError.render(
            message: message, fileName: location.fileName,
            mark: YAMLMark(line: location.line, column: location.column), sourceLine: location.sourceLine)
    }
}

extension ErrorCode where Domain == ConfigurationIssue {
    /// The file is not valid YAML, or is refused by the YAML limits (size, aliases, documents).
    package static var invalidYAML: Self { Self(rawValue: "invalid_yaml") }
    /// A mapping has the same key twice.
    package static var duplicateKey: Self { Self(rawValue: "duplicate_key") }
    /// A key the schema does not know (the message suggests the nearest known one).
    package static var unknownKey: Self { Self(rawValue: "unknown_key") }
    /// A required key is absent.
    package static var missingKey: Self { Self(rawValue: "missing_key") }
    /// A value has the wrong type (a list where a string belongs, `maybe` for a boolean…).
    package static var wrongType: Self { Self(rawValue: "wrong_type") }
    /// A value of the right type that is not acceptable.
    package static var invalidValue: Self { Self(rawValue: "invalid_value") }
    /// `${VAR}` names an environment variable that is not set, or is malformed.
    package static var undefinedVariable: Self { Self(rawValue: "undefined_variable") }
    /// A `*_file` key names a file that cannot be read, or holds the wrong kind of content.
    package static var unreadableFile: Self { Self(rawValue: "unreadable_file") }
    /// A URL that must be `https://` is not (only loopback hosts may use `http://`).
    package static var insecureURL: Self { Self(rawValue: "insecure_url") }
    /// `server.secret` is shorter than 32 bytes.
    package static var weakSecret: Self { Self(rawValue: "weak_secret") }
    /// A duration is not written like `8h`, `30m`, `90s` or `1h30m`.
    package static var invalidDuration: Self { Self(rawValue: "invalid_duration") }
    /// A feature that is planned but not available yet (e.g. `store.kind: redis`).
    package static var notAvailable: Self { Self(rawValue: "not_available") }
    /// Two keys that exclude each other are both set.
    package static var conflictingKeys: Self { Self(rawValue: "conflicting_keys") }
    /// A provider name that is not URL-path safe.
    package static var invalidProviderName: Self { Self(rawValue: "invalid_provider_name") }
}
