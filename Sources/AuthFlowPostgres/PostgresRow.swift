import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStores

/// One result row in text format; typed accessors throw `corruptData` when a column does not hold the
/// expected type, so a damaged or foreign row is a typed error rather than a crash.
struct PostgresRow: StoreRow, Sendable {
    /// Each column's text, `nil` for SQL NULL.
    let values: [String?]
    let operation: String

    private func value(_ index: Int) -> String? { index < values.count ? values[index] : nil }

    private func mismatch(_ index: Int, _ expected: String) -> StoreError {
        let found = value(index) == nil ? "NULL" : "a value of another type"
        return StoreError(
            .corruptData, "expected \(expected) in result column \(index), found \(found)", operation: operation)
    }

    func text(_ index: Int) throws(StoreError) -> String {
        guard let text = value(index) else { throw mismatch(index, "text") }
        return text
    }

    func optionalText(_ index: Int) throws(StoreError) -> String? { value(index) }

    func real(_ index: Int) throws(StoreError) -> Double {
        guard let text = value(index), let number = Double(text) else { throw mismatch(index, "a number") }
        return number
    }

    func optionalReal(_ index: Int) throws(StoreError) -> Double? {
        guard value(index) != nil else { return nil }
        return try real(index)
    }

    func integer(_ index: Int) throws(StoreError) -> Int64 {
        guard let text = value(index), let number = Int64(text) else { throw mismatch(index, "an integer") }
        return number
    }

    func bool(_ index: Int) throws(StoreError) -> Bool {
        switch value(index) {
        case "t": return true
        case "f": return false
        default: throw mismatch(index, "a boolean")
        }
    }

    func bytes(_ index: Int) throws(StoreError) -> [UInt8] {
        // `bytea` in text format: `\x` and two hex digits a byte.
        guard let text = value(index), text.hasPrefix("\\x"), let bytes = Hex.decode(text.dropFirst(2)) else {
            throw mismatch(index, "bytea")
        }
        return bytes
    }

    func optionalBytes(_ index: Int) throws(StoreError) -> [UInt8]? {
        guard value(index) != nil else { return nil }
        return try bytes(index)
    }
}
