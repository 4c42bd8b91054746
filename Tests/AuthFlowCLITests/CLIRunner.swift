import AuthFlowTestSupport
import Foundation

/// Runs the built `authflow` binary (found next to the test bundle) and the Python peer.
enum CLIRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct NotFound: Error, CustomStringConvertible {
        let description: String
    }

    static func binary() throws -> String {
        try BuiltProduct.path(named: "authflow")
    }

    static func authflow(_ arguments: [String], stdin: String? = nil) throws -> Output {
        try run(try binary(), arguments, stdin: stdin)
    }

    /// Runs the binary on a thread of its own, so the test's cooperative threads stay free to serve
    /// requests the binary makes to an in-process server.
    static func authflowOffPool(_ arguments: [String], timeout: Double = 60) async throws -> Output {
        let output = try await ChildProcess.run(
            executable: try binary(), arguments: arguments, stdin: [], timeout: timeout)
        return Output(output)
    }

    static let python: String? = ProcessInfo.processInfo.environment["AUTHFLOW_PYTHON"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
    }
    static let peersRequired = ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1"
    static let peerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("e2e/peers/jwt_peer.py").path

    static func peer(_ arguments: [String]) throws -> Output {
        guard let python else { throw NotFound(description: "AUTHFLOW_PYTHON does not name an executable Python") }
        return try run(python, [peerScript] + arguments)
    }

    /// Runs `executable` to completion (stdin: `stdin`, else empty), killing it after `timeout` seconds.
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil, timeout: Double = 60) throws
        -> Output
    {
        Output(
            try ChildProcess.run(
                executable: executable, arguments: arguments, stdin: Array((stdin ?? "").utf8), timeout: timeout))
    }
}

extension CLIRunner.Output {
    init(_ output: ChildProcess.Output) {
        self.init(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }
}

/// A temporary directory removed when released.
final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ text: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
