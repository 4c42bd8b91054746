import Foundation
import Testing

/// `authflow matrix` as users run it: exit codes, usage errors, and configuration errors reported exactly as
/// `authflow check` reports them.
@Suite struct MatrixCommandTests {
    static let environment = ["AUTHFLOW_SECRET": String(repeating: "k", count: 40)]

    static let header = """
        server:
          public_url: https://app.example
          secret: ${AUTHFLOW_SECRET}
        providers:

        """

    /// Invalid configurations of every kind: a typo'd key, a capability the provider cannot do, a wrong type,
    /// an unknown provider type, a required capability switched off, a broken YAML document.
    static let invalidConfigurations: [(String, String)] = [
        ("unknown key", header + "  google:\n    client_id: a\n    clinet_secret: s\n"),
        (
            "unsupported capability",
            header + "  x:\n    client_id: a\n    client_secret: s\n    capabilities: { oidc: true }\n"
        ),
        ("wrong type", header + "  google:\n    client_id: a\n    client_secret: s\n    capabilities: { pkce: yes }\n"),
        ("unknown provider type", header + "  corp:\n    type: gogle\n    client_id: a\n    client_secret: s\n"),
        (
            "required capability off",
            header + "  x:\n    client_id: a\n    client_secret: s\n    capabilities: { pkce: false }\n"
        ),
        ("broken YAML", header + "  google: [\n"),
        (
            "tenant rule for a provider without tenants",
            "server:\n  public_url: https://app.example\n  secret: ${AUTHFLOW_SECRET}\n  access:\n"
                + "    groups: [\"google/t:admins\"]\nproviders:\n  google:\n    client_id: a\n    client_secret: s\n"
        ),
        (
            "several problems",
            header
                + "  google:\n    client_id: a\n    client_secret: s\n    capabilities: { oidc: 1, pkc: true }\n  x:\n    client_id: b\n    scopes: users.read\n"
        ),
    ]

    @Test(arguments: invalidConfigurations.map(\.0))
    func invalidConfigurationIsReportedExactlyAsCheckReportsIt(kind: String) async throws {
        let yaml = try #require(Self.invalidConfigurations.first { $0.0 == kind }?.1)
        let directory = try ScratchDirectory()
        let file = try directory.write("providers.yaml", yaml)
        let check = try await CLIRunner.inPackageRoot(["check", "--config", file], environment: Self.environment)
        let matrix = try await CLIRunner.inPackageRoot(
            ["matrix", "--config", file, "--format", "json"], environment: Self.environment)
        #expect(check.status == 1)
        #expect(matrix.status == 1)
        #expect(matrix.stdout.isEmpty)
        #expect(!matrix.stderr.isEmpty)
        #expect(matrix.stderr == check.stderr)
        #expect(matrix.stderr.contains("\(file):"), "errors name the file, line and column")
    }

    @Test func missingFileIsReportedAsCheckReportsIt() async throws {
        let check = try await CLIRunner.inPackageRoot(["check", "--config", "/nonexistent/providers.yaml"])
        let matrix = try await CLIRunner.inPackageRoot(["matrix", "--config", "/nonexistent/providers.yaml"])
        #expect(matrix.status == 1)
        #expect(matrix.stderr == check.stderr)
    }

    @Test func templateWithoutSecretsIsAReportButNotASignInConfiguration() async throws {
        let check = try await CLIRunner.inPackageRoot(["check"])
        #expect(check.status == 1, "check needs the secrets the template reads from the environment")
        let matrix = try await CLIRunner.inPackageRoot(["matrix"])
        #expect(matrix.status == 0, "\(matrix.stderr)")
        #expect(matrix.stdout.hasPrefix("AuthFlow capability matrix: providers.yaml\n"))
    }

    @Test func unknownFormatIsAUsageError() async throws {
        let output = try await CLIRunner.inPackageRoot(["matrix", "--format", "xml"])
        #expect(output.status == 2)
        #expect(output.stdout.isEmpty)
        #expect(
            output.stderr.contains(
                "authflow matrix: --format: expected one of text, markdown, json, html, found the unknown format 'xml'")
        )
        #expect(output.stderr.contains("usage: authflow matrix"))
    }

    @Test(arguments: [["--frmat", "json"], ["extra"], ["--config"]])
    func badArgumentsAreUsageErrors(arguments: [String]) async throws {
        let output = try await CLIRunner.inPackageRoot(["matrix"] + arguments)
        #expect(output.status == 2)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("usage: authflow matrix"))
    }

    @Test func helpPrintsUsage() async throws {
        let output = try await CLIRunner.inPackageRoot(["matrix", "--help"])
        #expect(output.status == 0)
        #expect(output.stdout.contains("usage: authflow matrix [--config FILE] [--format text|markdown|json|html]"))
        let overview = try await CLIRunner.inPackageRoot(["--help"])
        #expect(overview.stdout.contains("matrix [--config FILE] [--format text|markdown|json|html]"))
    }
}
