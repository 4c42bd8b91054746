import AuthFlowTestSupport
import Foundation

/// Runs the built `authflow` binary (found next to the test bundle) and the Python peer: the one way every
/// CLI test starts the tool.
enum CLIRunner {
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct NotFound: Error, CustomStringConvertible {
        let description: String
    }

    /// The package root (two levels above this file's folder): where `authflow matrix` finds providers.yaml
    /// and examples/.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func binary() throws -> String {
        try BuiltProduct.path(named: "authflow")
    }

    /// Runs `authflow arguments` to completion on the calling thread. `environment` `nil` inherits the test's.
    static func authflow(
        _ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil, directory: String? = nil
    ) throws -> Output {
        try run(try binary(), arguments, stdin: stdin, environment: environment, directory: directory)
    }

    /// Runs the binary on a thread of its own, so the test's cooperative threads stay free to serve
    /// requests the binary makes to an in-process server. At most two run at once (`ProcessGate`).
    static func authflowOffPool(
        _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil, timeout: Double = 60
    ) async throws -> Output {
        try await runOffPool(try binary(), arguments, environment: environment, directory: directory, timeout: timeout)
    }

    /// `authflow arguments` as `authflow matrix` tests run it: in the package root, with no environment at all
    /// (so no secret is set) unless `environment` says otherwise.
    static func inPackageRoot(_ arguments: [String], environment: [String: String] = [:]) async throws -> Output {
        try await authflowOffPool(arguments, environment: environment, directory: packageRoot.path)
    }

    /// Runs `executable` off the cooperative pool, at most two at a time, killing it after `timeout`.
    static func runOffPool(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        timeout: Double
    ) async throws -> Output {
        await ProcessGate.shared.enter()
        defer { Task { await ProcessGate.shared.leave() } }
        let output = try await ChildProcess.run(
            executable: executable, arguments: arguments, stdin: [], environment: environment, directory: directory,
            timeout: timeout)
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

    /// The first executable among `candidates` (absolute paths) or on `PATH` by name.
    static func executable(named name: String, candidates: [String] = []) -> String? {
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
            .split(separator: ":").map { "\($0)/\(name)" }
        return (candidates + searchPath).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `executable` to completion (stdin: `stdin`, else empty), killing it after `timeout` seconds.
    static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
        directory: String? = nil, timeout: Double = 60
    ) throws -> Output {
        Output(
            try ChildProcess.run(
                executable: executable, arguments: arguments, stdin: Array((stdin ?? "").utf8),
                environment: environment, directory: directory, timeout: timeout))
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

    var path: String { url.path }

    func write(_ name: String, _ text: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
