/// A credential read from the configuration (client secret, private key, server secret).
///
/// Printing, interpolating, dumping or debug-printing it shows `<redacted>`; only ``value`` gives the text.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret text. Never log it or put it in an error message.
    public let value: String

    /// Wraps a secret.
    public init(_ value: String) {
        self.value = value
    }

    /// `<redacted>`.
    public var description: String { "<redacted>" }
    /// `<redacted>`.
    public var debugDescription: String { "<redacted>" }
    /// A mirror without children, so `dump` shows nothing of the value.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
