import AuthFlow
import AuthFlowDeployment
import Foundation

@testable import AuthFlowServer

/// A SQLite database file of one test in the temporary directory, removed with its `-wal` and `-shm` files.
struct TemporarySQLiteFile {
    /// The secret the tests' SQLite stores seal tokens with.
    static let secret = Secret("test-secret-0123456789abcdef-0123456789")

    let path: String

    /// A fresh path named `authflow-<label>-XXXXXXXX.sqlite`; nothing is created yet.
    init(_ label: String) {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "authflow-\(label)-\(UUID().uuidString.prefix(8)).sqlite"
            ).path
    }

    /// Removes the database and its WAL files.
    func remove() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The server's stores on this file, as `store.kind: sqlite` opens them.
    func stores(clock: any WallClock) throws -> SignInServer.Stores {
        try SignInServer.Stores.open(
            StoreSettings(kind: .sqlite, path: path), secret: Self.secret, clock: clock, random: SystemRandom())
    }
}
