import AuthFlowTestSupport
import Foundation

/// Runs Tests/e2e/peers/jwt_peer.py with the interpreter named by `AUTHFLOW_PYTHON`.
///
/// Without the variable the peer tests are skipped, unless `AUTHFLOW_REQUIRE_PEERS=1`, in which
/// case they run and fail on the missing interpreter.
enum PythonPeer {
    static let environment = ProcessInfo.processInfo.environment
    static let python: String? = environment["AUTHFLOW_PYTHON"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
    }
    static let required = environment["AUTHFLOW_REQUIRE_PEERS"] == "1"
    /// Whether peer tests should run at all (they then fail if Python is missing).
    static let shouldRun = python != nil || required

    static let script: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("e2e/peers/jwt_peer.py").path

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "AUTHFLOW_PYTHON does not name an executable Python (AUTHFLOW_REQUIRE_PEERS=1)" }
    }

    static func run(_ arguments: [String], timeout: Double = 60) throws -> Output {
        guard let python else { throw Missing() }
        return try ProcessRunner.run(python, [script] + arguments, timeout: timeout)
    }
}

/// Runs a process with a timeout and collects its output.
enum ProcessRunner {
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil, timeout: Double = 60) throws
        -> PythonPeer.Output
    {
        let output = try ChildProcess.run(
            executable: executable, arguments: arguments, stdin: Array((stdin ?? "").utf8), timeout: timeout)
        return PythonPeer.Output(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }
}

/// A temporary directory removed when the value is released by the test.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ text: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
