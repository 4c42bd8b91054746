package import Foundation

/// A temporary directory removed when the value is released.
package final class TemporaryDirectory: Sendable {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The bytes of the named file and of its `-wal` companion, if any.
    package func bytesOnDisk(_ name: String) throws -> [UInt8] {
        var bytes = [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))
        if let wal = try? Data(contentsOf: url.appendingPathComponent(name + "-wal")) { bytes += wal }
        return bytes
    }
}
