import AuthFlowTestSupport
import Foundation
import Testing

/// Runs a Python helper script from this folder as a child process for the duration of a test.
///
/// The interpreter is `AUTHFLOW_PYTHON`, else `python3` from `PATH`. When neither works, tests
/// that need it are disabled with a reason, unless `AUTHFLOW_REQUIRE_PEERS=1`, in which case
/// they run and fail.
package final class PythonPeer: Sendable {
    private let child: RunningChild

    package static var interpreter: String? {
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

    package static var requirePeers: Bool { ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1" }

    /// Whether the interpreter runs and can import `modules`.
    package static func canRun(importing modules: [String] = []) -> Bool {
        guard let interpreter else { return false }
        let probe = try? ChildProcess.run(
            executable: interpreter, arguments: ["-c", "import " + (["sys"] + modules).joined(separator: ", ")],
            timeout: 60)
        return probe?.termination == .exited(0)
    }

    package static let available = canRun()
    package static let tlsAvailable = canRun(importing: ["cryptography"])

    /// The path of a file in this Support folder.
    package static func supportFile(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Python")
            .appendingPathComponent(name).path
    }

    package init(script: String, arguments: [String] = []) throws {
        let interpreter = try #require(Self.interpreter, "no Python interpreter (set AUTHFLOW_PYTHON)")
        // The script exits when its stdin closes (`stop()`, or this process dying).
        child = try ChildProcess.start(
            executable: interpreter, arguments: ["-u", Self.supportFile(script)] + arguments, stdin: .pipe,
            stderr: .discard)
    }

    /// Waits (at most `timeout` seconds) for a stdout line `KEY value` and returns the value.
    package func value(for key: String, timeout: Double = 30) async throws -> String {
        let value = await Waiting.value(within: .seconds(timeout)) { () -> String?? in
            let text = child.stdoutText
            for line in text.split(separator: "\n") where line.hasPrefix(key + " ") {
                return String(line.dropFirst(key.count + 1))
            }
            // A peer that ended reports nothing more: stop waiting.
            return child.isRunning ? nil : .some(nil)
        }
        guard let value = value ?? nil else {
            throw PeerError(message: "the Python peer did not report \(key) within \(timeout) s")
        }
        return value
    }

    /// Stops the child process and waits for it (bounded): closes its stdin, then SIGTERM, then SIGKILL.
    package func stop() {
        child.closeStdin()
        child.stop(grace: 5)
    }

    deinit { stop() }
}

package struct PeerError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}
