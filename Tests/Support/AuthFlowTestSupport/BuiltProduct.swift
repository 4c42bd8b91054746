import Foundation

/// Finds executables SwiftPM built next to the test bundle (e.g. the `authflow` tool), so tests can run
/// them as a user would.
public enum BuiltProduct {
    /// The path of the built executable `name`.
    ///
    /// Looks in the directories of the running test binary and of every loaded bundle, and up to three
    /// levels above each (the build products directory holds the test bundle one or two levels down).
    ///
    /// - Throws: ``ChildProcessError`` `executable_not_found` when no such executable exists there.
    public static func path(named name: String) throws(ChildProcessError) -> String {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent())
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
        for directory in candidates {
            var url = directory
            for _ in 0..<4 {
                let path = url.appendingPathComponent(name).path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: path)
                {
                    return path
                }
                url = url.deletingLastPathComponent()
            }
        }
        throw ChildProcessError(
            code: "executable_not_found", message: "expected the built product next to the test bundle, found none",
            executable: name)
    }
}
