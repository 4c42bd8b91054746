import AuthFlow
import AuthFlowDeployment
import Foundation
import Testing

/// A loader over an in-memory file system, so tests never depend on the disk.
func makeLoader(
    environment: [String: String] = [:], files: [String: String] = [:], mode: ConfigurationLoader.Mode = .normal
) -> ConfigurationLoader {
    ConfigurationLoader(environment: environment, mode: mode) { path in
        guard let contents = files[path] else { throw CocoaError(.fileReadNoSuchFile) }
        return contents
    }
}

/// Loads `yaml` and returns the error it must throw.
func loadError(
    _ yaml: String, environment: [String: String] = [:], files: [String: String] = [:],
    mode: ConfigurationLoader.Mode = .normal
) throws -> ConfigurationError {
    do {
        _ = try makeLoader(environment: environment, files: files, mode: mode).load(
            yaml: yaml, fileName: "providers.yaml")
    } catch {
        return error
    }
    Issue.record("expected the configuration to be refused")
    throw CancellationError()
}

/// A minimal valid provider block, to be embedded after `providers:`.
let minimalProviders = """
    providers:
      google:
        type: google
        client_id: abc

    """
