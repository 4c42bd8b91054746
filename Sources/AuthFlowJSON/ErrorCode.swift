/// The stable code of an AuthFlow error: one shape for every error type of the package.
///
/// Each error type names its codes as `ErrorCode<ItsType>` (its nested `Code`), so the codes of one
/// error type cannot be compared with another's by mistake. A code is its snake_case text, the `error`
/// member of JSON error bodies; programs match on it with a string literal
/// (`error.code == "invalid_state"`), never on messages. The codes each error reports are listed in
/// the project's error documentation (docs/errors.md); a code's meaning does not change within a major
/// version, and a new code is not an API change.
public struct ErrorCode<Domain>: RawRepresentable, Hashable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The snake_case text, e.g. `"invalid_state"`.
    public let rawValue: String

    /// Wraps a code's text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A code written as its text: `let code: SignInError.Code = "invalid_state"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The code's text.
    public var description: String { rawValue }
}
