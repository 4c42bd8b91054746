import AuthFlowTestSupport
import Foundation

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

    private let child: RunningChild

    /// Starts `python -c script arguments…`; with `stdin: .pipe` its standard input stays open (a script that
    /// reads it waits) until the process is released.
    init(script: String, arguments: [String], stdin: ChildProcess.Input = .null) throws {
        child = try ChildProcess.start(
            executable: try Self.python(), arguments: ["-u", "-c", script] + arguments, stdin: stdin)
    }

    private static func python() throws -> String {
        guard let interpreter else {
            throw Failure(description: "AUTHFLOW_PYTHON does not name an executable Python (AUTHFLOW_REQUIRE_PEERS=1)")
        }
        return interpreter
    }

    /// Waits up to `timeout` seconds for the next line of standard output.
    func nextLine(timeout: Double = 30) async throws -> String {
        do {
            guard let line = try await child.readLine(timeout: timeout) else {
                let status = await child.waitForExit(timeout: 5)
                throw Failure(description: "python exited (\(status.map { "\($0)" } ?? "running")): \(standardError)")
            }
            return line
        } catch let error as ChildProcessError where error.code == "timed_out" {
            throw Failure(description: "no output from python within \(timeout) s: \(standardError)")
        }
    }

    /// Waits up to `timeout` seconds for the process to exit and returns its status.
    func exitStatus(timeout: Double = 30) async throws -> Int32 {
        guard let ended = await child.waitForExit(timeout: timeout) else {
            killHard()
            throw Failure(description: "python still running after \(timeout) s")
        }
        return ended.status
    }

    /// Sends SIGKILL (no chance to clean up, like a crash) and waits for the process to end.
    func killHard() { child.kill() }

    var standardError: String { child.stderrText }

    /// Runs a script to completion and returns its standard output lines.
    static func run(_ script: String, _ arguments: [String], timeout: Double = 60) async throws -> [String] {
        let output = try await ChildProcess.run(
            executable: try python(), arguments: ["-u", "-c", script] + arguments, timeout: timeout)
        guard output.termination == .exited(0) else {
            throw Failure(description: "python ended (\(output.termination)): \(output.stderrText)")
        }
        return output.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
