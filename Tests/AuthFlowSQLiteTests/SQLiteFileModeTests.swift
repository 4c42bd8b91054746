import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowSQLite

/// Database files hold PKCE verifiers, session digests and encrypted tokens: owner-only on disk.
@Suite struct SQLiteFileModeTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test func aNewDatabaseAndItsWALAndSHMFilesAreOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("modes.sqlite")
        let database = try SQLiteDatabase(path: path)
        // A write while the connection is open leaves the -wal and -shm files in place.
        try await database.perform("test") { connection throws(StoreError) in
            try connection.execute("CREATE TABLE probe (x INTEGER); INSERT INTO probe VALUES (1)", operation: "test")
        }
        for suffix in ["", "-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: path + suffix), "\(suffix)")
            #expect(try Self.mode(path + suffix) == 0o600, "modes.sqlite\(suffix)")
        }
    }

    @Test func anExistingFileKeepsItsModeAndItsData() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("existing.sqlite")
        do {
            let database = try SQLiteDatabase(path: path)
            try await database.perform("test") { connection throws(StoreError) in
                try connection.execute("CREATE TABLE kept (x INTEGER); INSERT INTO kept VALUES (7)", operation: "test")
            }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let reopened = try SQLiteDatabase(path: path)
        let value = try await reopened.perform("test") { connection throws(StoreError) in
            try connection.query("SELECT x FROM kept", operation: "test").first?.values.first
        }
        #expect(value == .integer(7))
        #expect(try Self.mode(path) == 0o640)
    }
}
