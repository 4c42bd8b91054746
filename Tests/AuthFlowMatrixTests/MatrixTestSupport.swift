import AuthFlow
import AuthFlowDeployment
import AuthFlowMatrix
import AuthFlowProviders
import AuthFlowTestSupport
import Foundation
import Testing

/// Paths, configurations and process helpers shared by the matrix tests.
enum MatrixTestSupport {
    /// The package root (two levels above this file's folder).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Snapshots")
    /// `AUTHFLOW_UPDATE_SNAPSHOTS=1 swift test --filter AuthFlowMatrixTests` rewrites snapshots and examples/README.md.
    static let updating = ProcessInfo.processInfo.environment["AUTHFLOW_UPDATE_SNAPSHOTS"] == "1"
    static let peersRequired = ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1"

    static func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

    /// Loads `relative` (from the package root) as `authflow matrix` does: sandbox mode, no environment,
    /// credentials needed only as keys.
    static func providers(_ relative: String, environment: [String: String] = [:]) throws -> [ResolvedProvider] {
        let loader = ConfigurationLoader(environment: environment, mode: .sandbox)
        let configuration = try loader.load(path: path(relative))
        return try ProviderRegistry.standard.resolve(configuration, credentials: .keys)
    }

    /// Loads a configuration given as text, as `authflow matrix` does.
    static func providers(yaml: String) throws -> [ResolvedProvider] {
        let loader = ConfigurationLoader(environment: [:], mode: .sandbox)
        let configuration = try loader.load(yaml: yaml, fileName: "test.yaml")
        return try ProviderRegistry.standard.resolve(configuration, credentials: .keys)
    }

    // MARK: Processes

    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `executable` on a thread of its own (never blocking the cooperative pool), killing it after `timeout`.
    ///
    /// At most two of these processes run at a time, so the matrix tests do not starve the timing-sensitive
    /// tests of other suites running alongside on a small machine.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: URL = packageRoot, timeout: Double
    ) async throws -> Output {
        await ProcessGate.shared.enter()
        defer { Task { await ProcessGate.shared.leave() } }
        let output = try await ChildProcess.run(
            executable: executable, arguments: arguments, environment: environment, directory: directory.path,
            timeout: timeout)
        return Output(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }

    /// The first executable among `candidates` (absolute paths) or on `PATH` by name.
    static func executable(named name: String, candidates: [String] = []) -> String? {
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
            .split(separator: ":").map { "\($0)/\(name)" }
        return (candidates + searchPath).first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A temporary directory removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file.path
    }
}
