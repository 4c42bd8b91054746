import AuthFlow
import AuthFlowDeployment
import AuthFlowMatrix
import AuthFlowProviders
import Foundation
import Testing

/// `authflow matrix` prints exactly what the `AuthFlowMatrix` library renders (whose snapshots and JSON contract
/// `AuthFlowMatrixTests` check), run without any secret in the environment.
@Suite struct MatrixOutputTests {
    /// `AUTHFLOW_UPDATE_SNAPSHOTS=1` rewrites the embedded matrices of examples/README.md.
    static let updating = ProcessInfo.processInfo.environment["AUTHFLOW_UPDATE_SNAPSHOTS"] == "1"

    /// The library's matrix of `relative` (from the package root), loaded as the command loads it: sandbox mode,
    /// no environment, credentials needed only as keys.
    static func libraryMatrix(_ relative: String) throws -> CapabilityMatrix {
        let loader = ConfigurationLoader(environment: [:], mode: .sandbox)
        let configuration = try loader.load(path: CLIRunner.packageRoot.appendingPathComponent(relative).path)
        let providers = try ProviderRegistry.standard.resolve(configuration, credentials: .keys)
        return CapabilityMatrix(providers: providers, source: relative, storesTokens: configuration.server != nil)
    }

    @Test func everyFormatIsWhatTheLibraryRenders() async throws {
        let matrix = try Self.libraryMatrix("examples/plain.yaml")
        for format in MatrixFormat.allCases {
            let output = try await CLIRunner.inPackageRoot([
                "matrix", "--config", "examples/plain.yaml", "--format", format.rawValue,
            ])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stderr.isEmpty)
            #expect(output.stdout == matrix.render(format: format), "format \(format.rawValue)")
        }
        let defaultFormat = try await CLIRunner.inPackageRoot(["matrix", "--config", "examples/plain.yaml"])
        #expect(defaultFormat.stdout == matrix.render(format: .text))
    }

    @Test func theRootConfigurationAsJSONNamesItsSource() async throws {
        let output = try await CLIRunner.inPackageRoot(["matrix", "--format=json"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout == (try Self.libraryMatrix("providers.yaml")).render(format: .json))
        let document = try JSONValue.parse(Array(output.stdout.utf8))
        #expect(document["source"] == .string("providers.yaml"))
        #expect((document["providers"]?.arrayValue?.count ?? 0) > 0)
    }
}
