/// The decoded parameters of a provider callback: the query string (GET) or the form body (POST).
public struct CallbackParameters: Sendable {
    /// Name/value pairs in arrival order; names may repeat.
    package let pairs: [(name: String, value: String)]

    /// Wraps decoded pairs, e.g. from `HTTPServerRequest.query` or `formFields()`.
    public init(_ pairs: [(String, String)]) {
        self.pairs = pairs.map { (name: $0.0, value: $0.1) }
    }

    /// The value of the first parameter called `name`.
    public func value(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// How many times `name` occurs.
    package func count(_ name: String) -> Int {
        pairs.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
    }
}
