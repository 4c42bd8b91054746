import Foundation
import Synchronization
import Testing

/// Runs a Python helper script from this folder as a child process for the duration of a test.
///
/// The interpreter is `AUTHFLOW_PYTHON`, else `python3` from `PATH`. When neither works, tests
/// that need it are disabled with a reason, unless `AUTHFLOW_REQUIRE_PEERS=1`, in which case
/// they run and fail.
final class PythonPeer: Sendable {
    private let process: Process
    private let stdinPipe: Pipe
    private let output = OutputBuffer()

    static var interpreter: String? {
        if let configured = ProcessInfo.processInfo.environment["AUTHFLOW_PYTHON"], !configured.isEmpty {
            return configured
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static var requirePeers: Bool { ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1" }

    /// Whether the interpreter runs and can import `modules`.
    static func canRun(importing modules: [String] = []) -> Bool {
        guard let interpreter else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: interpreter)
        probe.arguments = ["-c", "import " + (["sys"] + modules).joined(separator: ", ")]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    static let available = canRun()
    static let tlsAvailable = canRun(importing: ["cryptography"])

    /// The path of a file in this Support folder.
    static func supportFile(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Python")
            .appendingPathComponent(name).path
    }

    init(script: String, arguments: [String] = []) throws {
        let interpreter = try #require(Self.interpreter, "no Python interpreter (set AUTHFLOW_PYTHON)")
        process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = ["-u", Self.supportFile(script)] + arguments
        stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = FileHandle.nullDevice
        let output = self.output
        stdoutPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
            } else {
                output.bytes.withLock { $0.append(contentsOf: data) }
            }
        }
        try process.run()
    }

    /// Waits (at most `timeout` seconds) for a stdout line `KEY value` and returns the value.
    func value(for key: String, timeout: Double = 15) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = output.bytes.withLock { String(decoding: $0, as: UTF8.self) }
            for line in text.split(separator: "\n") where line.hasPrefix(key + " ") {
                return String(line.dropFirst(key.count + 1))
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw PeerError(message: "the Python peer did not report \(key) within \(timeout) s")
    }

    /// Stops the child process and waits for it (bounded).
    func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { stop() }
}

/// Bytes a child process wrote, shared with the pipe's reading thread.
final class OutputBuffer: Sendable {
    let bytes = Mutex<[UInt8]>([])
}

struct PeerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
