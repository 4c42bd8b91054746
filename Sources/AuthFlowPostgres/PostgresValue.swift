import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStores

/// A value bound to a statement parameter, sent in PostgreSQL's text format.
///
/// Values only ever reach SQL as `$n` parameters of `PQsendQueryParams`, never spliced into the statement text.
enum PostgresValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bytes([UInt8])
    case bool(Bool)

    /// `.text` or `.null`.
    static func optional(_ text: String?) -> PostgresValue { text.map(PostgresValue.text) ?? .null }

    /// `.bytes` or `.null`.
    static func optional(_ bytes: [UInt8]?) -> PostgresValue { bytes.map(PostgresValue.bytes) ?? .null }

    /// `.real` or `.null`.
    static func optional(_ number: Double?) -> PostgresValue { number.map(PostgresValue.real) ?? .null }

    /// The parameter's text form (`nil` for SQL NULL): numbers in their shortest exact decimal form, `bytea`
    /// in hex (`\x…`), booleans as `true`/`false`.
    var textForm: String? {
        switch self {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number): return number.description
        case .text(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .bytes(let bytes): return "\\x" + Hex.encode(bytes)
        }
    }
}

extension PostgresValue {
    /// A value of the shared SQL store layer, one to one.
    init(_ value: StoreValue) {
        switch value {
        case .null: self = .null
        case .integer(let number): self = .integer(number)
        case .real(let number): self = .real(number)
        case .text(let text): self = .text(text)
        case .bytes(let bytes): self = .bytes(bytes)
        case .bool(let flag): self = .bool(flag)
        }
    }
}
