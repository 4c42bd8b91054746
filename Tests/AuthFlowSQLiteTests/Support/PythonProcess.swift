import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A Python child process (the interpreter named by `AUTHFLOW_PYTHON`) running an inline script, for
/// checks by an independent SQLite reader/writer and an independent AES-GCM implementation.
///
/// Without the variable the tests that need it are skipped, unless `AUTHFLOW_REQUIRE_PEERS=1`, in which case
/// they run and fail on the missing interpreter.
final class PythonProcess: Sendable {
    static let interpreter: String? = ProcessInfo.processInfo.environment["AUTHFLOW_PYTHON"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
    }
    static let required = ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1"
    /// Whether tests needing Python run at all (and then fail when it is missing).
    static let shouldRun = interpreter != nil || required

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the reading handlers collect.
    private final class Output: Sendable {
        let lines = Mutex<[String]>([])
        let partial = Mutex<[UInt8]>([])
        let errors = Mutex<[UInt8]>([])
        let closed = Mutex(false)
    }

    private let process: Process
    private let output = Output()

    /// Starts `python -c script arguments…`.
    init(script: String, arguments: [String]) throws {
        guard let interpreter = Self.interpreter else {
            throw Failure(description: "AUTHFLOW_PYTHON does not name an executable Python (AUTHFLOW_REQUIRE_PEERS=1)")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = ["-u", "-c", script] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.partial.withLock { buffer in
                buffer += data
                while let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeSubrange(...newline)
                    output.lines.withLock { $0.append(line) }
                }
            }
            if data.isEmpty {
                handle.readabilityHandler = nil
                output.closed.withLock { $0 = true }
            }
        }
        err.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.errors.withLock { $0 += data }
            if data.isEmpty { handle.readabilityHandler = nil }
        }
        try process.run()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Waits up to `timeout` seconds for the next line of standard output.
    func nextLine(timeout: Double = 30) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let line = output.lines.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return line }
            if !process.isRunning, output.lines.withLock({ $0.isEmpty }) {
                try await Task.sleep(nanoseconds: 50_000_000)
                if let line = output.lines.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { return line }
                throw Failure(description: "python exited (\(process.terminationStatus)): \(standardError)")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        throw Failure(description: "no output from python within \(timeout) s: \(standardError)")
    }

    /// Waits up to `timeout` seconds for the process to exit and returns its status.
    func exitStatus(timeout: Double = 30) async throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                killHard()
                throw Failure(description: "python still running after \(timeout) s")
            }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        return process.terminationStatus
    }

    /// Sends SIGKILL (no chance to clean up, like a crash) and waits for the process to end.
    func killHard() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    var standardError: String { output.errors.withLock { String(decoding: $0, as: UTF8.self) } }

    /// Runs a script to completion and returns its standard output lines.
    static func run(_ script: String, _ arguments: [String], timeout: Double = 60) async throws -> [String] {
        let python = try PythonProcess(script: script, arguments: arguments)
        let status = try await python.exitStatus(timeout: timeout)
        for _ in 0..<500 where !python.output.closed.withLock({ $0 }) { try await Task.sleep(nanoseconds: 10_000_000) }
        guard status == 0 else { throw Failure(description: "python exited \(status): \(python.standardError)") }
        return python.output.lines.withLock { $0 }
    }
}
