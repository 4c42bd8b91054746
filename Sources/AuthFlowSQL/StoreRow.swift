package import AuthFlowStores
package import Foundation

/// A result row of a SQL account or session store (SQLite, PostgreSQL), read by column index; each backend's
/// row type conforms, so the row ↔ value mapping is written once here.
///
/// Every getter throws `StoreError` `corruptData` when the column holds another kind of value.
package protocol StoreRow {
    /// A non-null text column.
    func text(_ index: Int) throws(StoreError) -> String
    /// A nullable text column.
    func optionalText(_ index: Int) throws(StoreError) -> String?
    /// A non-null, finite real column.
    func real(_ index: Int) throws(StoreError) -> Double
    /// A nullable real column.
    func optionalReal(_ index: Int) throws(StoreError) -> Double?
    /// A non-null boolean column.
    func bool(_ index: Int) throws(StoreError) -> Bool
    /// A nullable byte-string column (BLOB, bytea).
    func optionalBytes(_ index: Int) throws(StoreError) -> [UInt8]?
}

extension StoreRow {
    /// A date stored as seconds since 1970 (UTC).
    package func date(_ index: Int) throws(StoreError) -> Date { Date(timeIntervalSince1970: try real(index)) }

    /// A nullable date stored as seconds since 1970 (UTC).
    package func optionalDate(_ index: Int) throws(StoreError) -> Date? {
        try optionalReal(index).map { Date(timeIntervalSince1970: $0) }
    }
}
