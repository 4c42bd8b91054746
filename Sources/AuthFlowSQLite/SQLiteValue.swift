import AuthFlowSQL
import AuthFlowStores

/// A value bound to a statement parameter or read from a result column.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    /// `.text` or `.null`.
    static func optional(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }

    /// `.blob` or `.null`.
    static func optional(_ bytes: [UInt8]?) -> SQLiteValue { bytes.map(SQLiteValue.blob) ?? .null }

    /// `.real` or `.null`.
    static func optional(_ number: Double?) -> SQLiteValue { number.map(SQLiteValue.real) ?? .null }

    /// `1` or `0`.
    static func bool(_ flag: Bool) -> SQLiteValue { .integer(flag ? 1 : 0) }
}

extension SQLiteValue {
    /// A value of the shared SQL store layer as SQLite stores it (booleans as `1`/`0`, bytes as BLOB).
    init(_ value: StoreValue) {
        switch value {
        case .null: self = .null
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .text(let text): self = .text(text)
        case .bytes(let bytes): self = .blob(bytes)
        case .bool(let flag): self = .bool(flag)
        }
    }
}
