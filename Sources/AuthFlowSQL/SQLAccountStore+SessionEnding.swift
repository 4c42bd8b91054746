package import AuthFlowStores

extension SQLAccountStore: SessionEndingAccountStore {
    /// A copy of this store whose account writes also delete the session stored under `digest`, when `sessions`
    /// is the SQL session store over this very database (the same object: one file, one PostgreSQL pool); `nil`
    /// otherwise, as for sessions kept in Redis.
    package func endingSession(digest: [UInt8], keptIn sessions: any SessionStore) -> (any AccountStore)? {
        guard let sql = sessions as? SQLSessionStore<Database>, Self.isSameDatabase(sql.database, database),
            (try? StoreValidation.checkDigest(digest, operation: "endingSession")) != nil
        else { return nil }
        var ending = self
        ending.sessionToEnd = digest
        return ending
    }

    /// Whether `one` and `other` are the same database object; a database that is not a class is never assumed
    /// shared.
    static func isSameDatabase(_ one: Database, _ other: Database) -> Bool {
        guard Database.self is AnyObject.Type else { return false }
        return (one as AnyObject) === (other as AnyObject)
    }

    /// Deletes the session stored under `digest`, when there is one to end, inside the caller's transaction.
    static func endSession(_ digest: [UInt8]?, in connection: any SQLConnection, operation: String)
        throws(StoreError)
    {
        guard let digest else { return }
        try connection.run("DELETE FROM sessions WHERE id_digest = $1", .bytes(digest), operation: operation)
    }
}
