import Foundation
import Synchronization

/// The built `authflow` binary running as a child process, watched without blocking the cooperative pool
/// (output is collected by a pipe handler; waits poll with `Task.sleep`).
final class ServeProcess: Sendable {
    /// What the handlers record (a class, so the closures can share it).
    private final class Record: Sendable {
        let output = Mutex<[UInt8]>([])
        let errors = Mutex<[UInt8]>([])
        let exitStatus = Mutex<Int32?>(nil)
    }

    private let process: Process
    private let record = Record()

    init(_ arguments: [String], directory: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        self.process = process
        let record = self.record
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            record.output.withLock { $0 += data }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            record.errors.withLock { $0 += data }
        }
        process.terminationHandler = { process in
            record.exitStatus.withLock { $0 = process.terminationStatus }
        }
        try process.run()
    }

    var stdout: String { record.output.withLock { String(decoding: $0, as: UTF8.self) } }
    var stderr: String { record.errors.withLock { String(decoding: $0, as: UTF8.self) } }
    var pid: Int32 { process.processIdentifier }

    /// Waits until stdout holds `count` complete lines (or the process exits, or `timeout` passes).
    func lines(_ count: Int, timeout: Double = 60) async throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let lines = stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
            if lines.count >= count || record.exitStatus.withLock({ $0 }) != nil { return lines }
            try await Task.sleep(for: .milliseconds(50))
        }
        return stdout.split(separator: "\n").map(String.init)
    }

    /// Sends `signal` to the process (by its id) while it runs.
    func send(_ signal: Int32) {
        guard record.exitStatus.withLock({ $0 }) == nil else { return }
        kill(process.processIdentifier, signal)
    }

    /// Waits for the exit status; kills the process (by its id) and returns `nil` after `timeout`.
    func exit(timeout: Double = 30) async throws -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let status = record.exitStatus.withLock({ $0 }) { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(process.processIdentifier, SIGKILL)
        return nil
    }

    static func binary() throws -> String {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent())
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
        for directory in candidates {
            var url = directory
            for _ in 0..<4 {
                let path = url.appendingPathComponent("authflow").path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: path)
                {
                    return path
                }
                url = url.deletingLastPathComponent()
            }
        }
        throw CocoaError(.fileNoSuchFile)
    }
}
