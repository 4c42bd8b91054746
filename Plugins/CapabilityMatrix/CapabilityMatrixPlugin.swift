import Foundation
import PackagePlugin

/// `swift package capability-matrix [--config FILE] [--format text|markdown|json|html]`: runs this package's
/// `authflow matrix` with the arguments given and prints its output.
///
/// Thin on purpose: it finds the tool, runs it in the package directory (so `providers.yaml` is the default
/// configuration), passes the arguments through, and fails with the tool's exit status.
@main
struct CapabilityMatrixPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let tool: PluginContext.Tool
        do {
            tool = try context.tool(named: "authflow")
        } catch {
            Diagnostics.error("capability-matrix: cannot find the authflow tool of this package: \(error)")
            throw error
        }
        let process = Process()
        process.executableURL = tool.url
        process.arguments = ["matrix"] + arguments
        process.currentDirectoryURL = context.package.directoryURL
        // The report goes straight to this plugin's standard output; the tool's messages are collected and
        // passed on, since a plugin's own standard error does not always reach the user.
        let messages = Pipe()
        process.standardError = messages
        do {
            try process.run()
        } catch {
            Diagnostics.error("capability-matrix: cannot run \(tool.url.path): \(error)")
            throw error
        }
        let text = String(decoding: messages.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let succeeded = process.terminationReason == .exit && process.terminationStatus == 0
        guard succeeded else {
            let failure = CapabilityMatrixFailure(
                status: process.terminationStatus, signalled: process.terminationReason != .exit)
            Diagnostics.error(failure.explanation + (text.isEmpty ? "" : ":\n" + text))
            throw failure
        }
        if !text.isEmpty { Diagnostics.warning(text) }
    }
}

/// `authflow matrix` did not succeed (its own messages are already on stderr).
struct CapabilityMatrixFailure: Error, CustomStringConvertible {
    let status: Int32
    let signalled: Bool

    /// What went wrong, for the diagnostic.
    var explanation: String {
        if signalled { return "capability-matrix: authflow matrix was stopped by signal \(status)" }
        return switch status {
        case 1: "capability-matrix: the configuration is invalid"
        case 2: "capability-matrix: usage error (swift package capability-matrix [--config FILE] [--format FORMAT])"
        default: "capability-matrix: authflow matrix failed"
        }
    }

    var description: String { "authflow matrix exited with status \(status)" }
}
