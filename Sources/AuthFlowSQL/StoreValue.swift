import AuthFlowStores

/// A value bound to a statement of the shared SQL store layer; each backend maps it onto its driver's type
/// (SQLite stores booleans as INTEGER 0/1 and bytes as BLOB, PostgreSQL as `boolean` and `bytea`).
package enum StoreValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A finite double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// A byte string.
    case bytes([UInt8])
    /// A boolean.
    case bool(Bool)

    /// Text, or NULL for `nil`.
    package static func optional(_ text: String?) -> StoreValue { text.map(StoreValue.text) ?? .null }

    /// Bytes, or NULL for `nil`.
    package static func optional(_ bytes: [UInt8]?) -> StoreValue { bytes.map(StoreValue.bytes) ?? .null }

    /// A real, or NULL for `nil`.
    package static func optional(_ number: Double?) -> StoreValue { number.map(StoreValue.real) ?? .null }
}
