import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The SQLite file of one sandbox-mode run: `authflow.sqlite` created empty with mode 0600 inside a fresh
/// directory of mode 0700 under the system temporary directory, and removed with that directory at exit.
struct ThrowawayDatabase: Sendable {
    /// The directory holding the file.
    let directory: String
    /// The database file.
    let path: String

    /// Creates the directory and the empty file.
    ///
    /// - Throws: ``ThrowawayDatabase/CreationError`` when either cannot be created.
    static func create() throws(CreationError) -> ThrowawayDatabase {
        var base = FileManager.default.temporaryDirectory.path
        while base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/authflow-sandbox-XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!) }
        guard created != nil else { throw CreationError(path: base, errorNumber: errno) }
        let directory = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // mkdtemp creates the directory 0700; the file is created 0600 before SQLite opens it (SQLite gives
        // its -wal and -shm files the database file's mode).
        let path = directory + "/authflow.sqlite"
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let number = errno
            rmdir(directory)
            throw CreationError(path: path, errorNumber: number)
        }
        close(descriptor)
        return ThrowawayDatabase(directory: directory, path: path)
    }

    /// Removes the database, its journal files and the directory.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The directory or file could not be created.
    struct CreationError: Error, CustomStringConvertible {
        /// What was being created.
        let path: String
        /// The `errno` of the failure.
        let errorNumber: Int32

        var description: String {
            "cannot create the sandbox's temporary database at \(path): \(String(cString: strerror(errorNumber)))"
        }
    }
}
