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
        do {
            try process.run()
        } catch {
            Diagnostics.error("capability-matrix: cannot run \(tool.url.path): \(error)")
            throw error
        }
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let failure = CapabilityMatrixFailure(status: process.terminationStatus)
            Diagnostics.error(failure.description)
            throw failure
        }
    }
}

/// `authflow matrix` exited unsuccessfully (its own message is already on stderr).
struct CapabilityMatrixFailure: Error, CustomStringConvertible {
    let status: Int32

    var description: String {
        switch status {
        case 1: "capability-matrix: the configuration is invalid (authflow matrix exited with status 1; see above)"
        case 2: "capability-matrix: usage error (authflow matrix exited with status 2; see above)"
        default: "capability-matrix: authflow matrix failed with status \(status)"
        }
    }
}
