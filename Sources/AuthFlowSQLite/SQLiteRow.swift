import AuthFlowSQL
import AuthFlowStores

/// One result row; typed accessors throw `corruptData` when a column does not hold the expected type, so a
/// damaged or foreign row is a typed error rather than a crash.
struct SQLiteRow: StoreRow, Sendable {
    let values: [SQLiteValue]
    let operation: String

    private func value(_ index: Int) -> SQLiteValue { index < values.count ? values[index] : .null }

    private func mismatch(_ index: Int, _ expected: String) -> StoreError {
        StoreError(
            .corruptData, "expected \(expected) in result column \(index), found \(Self.kind(value(index)))",
            operation: operation)
    }

    private static func kind(_ value: SQLiteValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer: return "an integer"
        case .real: return "a real number"
        case .text: return "text"
        case .blob: return "a blob"
        }
    }

    func text(_ index: Int) throws(StoreError) -> String {
        guard case .text(let text) = value(index) else { throw mismatch(index, "text") }
        return text
    }

    func optionalText(_ index: Int) throws(StoreError) -> String? {
        switch value(index) {
        case .null: return nil
        case .text(let text): return text
        default: throw mismatch(index, "text or NULL")
        }
    }

    func blob(_ index: Int) throws(StoreError) -> [UInt8] {
        guard case .blob(let bytes) = value(index) else { throw mismatch(index, "a blob") }
        return bytes
    }

    func optionalBytes(_ index: Int) throws(StoreError) -> [UInt8]? {
        switch value(index) {
        case .null: return nil
        case .blob(let bytes): return bytes
        default: throw mismatch(index, "a blob or NULL")
        }
    }

    func integer(_ index: Int) throws(StoreError) -> Int64 {
        guard case .integer(let number) = value(index) else { throw mismatch(index, "an integer") }
        return number
    }

    func bool(_ index: Int) throws(StoreError) -> Bool {
        switch try integer(index) {
        case 0: return false
        case 1: return true
        default: throw mismatch(index, "0 or 1")
        }
    }

    func real(_ index: Int) throws(StoreError) -> Double {
        switch value(index) {
        case .real(let number) where number.isFinite: return number
        case .integer(let number): return Double(number)
        default: throw mismatch(index, "a finite real number")
        }
    }

    func optionalReal(_ index: Int) throws(StoreError) -> Double? {
        if case .null = value(index) { return nil }
        return try real(index)
    }
}
