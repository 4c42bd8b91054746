/// The stable code of an AuthFlow error: one shape for every error type of the package.
///
/// Each error type names its codes as `ErrorCode<ItsType>` (its nested `Code`), so the codes of one
/// error type cannot be compared with another's by mistake, and each code is a named static
/// (`SignInError.Code.invalidState`). Programs match on codes, never on messages; a code's meaning does
/// not change within a major version. The raw value is the snake_case text that JSON error bodies carry
/// as `error`.
public struct ErrorCode<Domain>: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The snake_case text, e.g. `"invalid_state"`.
    public let rawValue: String

    /// Wraps a code's text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The code's text.
    public var description: String { rawValue }
}
