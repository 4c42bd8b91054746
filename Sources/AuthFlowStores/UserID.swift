/// The opaque, stable identifier of a user in an ``AccountStore``.
///
/// Generated from random bytes so it reveals nothing about the user and cannot be
/// guessed; applications key their own data by it.
public struct UserID: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The identifier's text.
    public let rawValue: String

    /// Wraps a stored identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The identifier's text.
    public var description: String { rawValue }

    /// Orders by the identifier's text.
    public static func < (lhs: UserID, rhs: UserID) -> Bool { lhs.rawValue < rhs.rawValue }
}
