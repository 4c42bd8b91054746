import Foundation
import Testing

/// `swift package capability-matrix` (Plugins/CapabilityMatrix) runs this package's `authflow matrix`.
///
/// It runs the plugin in this package directory. `swift test` holds the build directory's lock while tests run, so the
/// plugin runs with `--ignore-lock`: by then `swift test` has built `authflow`, and the plugin's build of it is
/// a no-op. (`Tests/AuthFlowMatrixTests/plugin-clean-clone.sh` checks a clean clone, offline, end to end.)
@Suite(.serialized) struct CapabilityMatrixPluginTests {
    static let swift = CLIRunner.executable(
        named: "swift", candidates: [ProcessInfo.processInfo.environment["AUTHFLOW_SWIFT"] ?? ""])

    static func plugin(_ arguments: [String]) async throws -> CLIRunner.Output {
        let swift = try #require(Self.swift, "the swift driver is not on PATH")
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasSuffix("_SECRET") || key.hasPrefix("APPLE_") { environment[key] = nil }
        return try await CLIRunner.runOffPool(
            swift, ["package", "--ignore-lock", "capability-matrix"] + arguments, environment: environment,
            directory: CLIRunner.packageRoot.path, timeout: 900)
    }

    @Test(.enabled(if: swift != nil || CLIRunner.peersRequired, "the swift driver is not on PATH"))
    func printsWhatTheCommandPrints() async throws {
        let plugin = try await Self.plugin(["--format", "json"])
        #expect(plugin.status == 0, "\(plugin.stderr.suffix(3000))")
        let command = try await CLIRunner.inPackageRoot(["matrix", "--format", "json"])
        #expect(plugin.stdout == command.stdout)
        #expect(plugin.stdout.contains("\"providers\": ["))
    }

    @Test(.enabled(if: swift != nil || CLIRunner.peersRequired, "the swift driver is not on PATH"))
    func passesArgumentsThroughAndFailsClearly() async throws {
        let plain = try await Self.plugin(["--config", "examples/plain.yaml", "--format", "markdown"])
        #expect(plain.status == 0, "\(plain.stderr.suffix(3000))")
        #expect(plain.stdout.hasPrefix("**AuthFlow capability matrix**: `examples/plain.yaml`\n"))

        let missing = try await Self.plugin(["--config", "/nonexistent/providers.yaml"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("cannot read configuration file"))
        #expect(missing.stderr.contains("capability-matrix: the configuration is invalid"))

        let usage = try await Self.plugin(["--format", "xml"])
        #expect(usage.status != 0)
        #expect(usage.stderr.contains("unknown format 'xml'"))
        #expect(usage.stderr.contains("capability-matrix: usage error"))
    }
}
