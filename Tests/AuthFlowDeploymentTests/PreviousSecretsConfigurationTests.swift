import AuthFlow
import AuthFlowDeployment
import Testing

/// `server.previous_secrets`: the secrets `server.secret` replaced, read like it and never shown.
@Suite struct PreviousSecretsConfigurationTests {
    static let current = String(repeating: "c", count: 32)
    static let old = "old-secret-0123456789abcdef-0123456789"

    func yaml(_ lines: String) -> String {
        "server:\n  public_url: https://app.example\n  secret: \(Self.current)\n" + lines + minimalProviders
    }

    @Test func readsInlineAndEnvironmentSecretsInOrder() throws {
        let configuration = try makeLoader(environment: ["OLDER_SECRET": String(repeating: "o", count: 40)]).load(
            yaml: yaml("  previous_secrets:\n    - \(Self.old)\n    - ${OLDER_SECRET}\n"), fileName: "providers.yaml")
        #expect(configuration.server?.previousSecrets.map(\.value) == [Self.old, String(repeating: "o", count: 40)])
        // An inline one lives in the file: it counts for the file's permission warning, as server.secret does.
        #expect(configuration.secretFiles.map(\.key).contains("server.previous_secrets[0]"))
        #expect(!configuration.secretFiles.map(\.key).contains("server.previous_secrets[1]"))
    }

    @Test func defaultsToNone() throws {
        let configuration = try makeLoader().load(yaml: yaml(""), fileName: "providers.yaml")
        #expect(configuration.server?.previousSecrets == [])
        let flow = try makeLoader().load(yaml: yaml("  previous_secrets: []\n"), fileName: "providers.yaml")
        #expect(flow.server?.previousSecrets == [])
    }

    @Test func refusesAShortOneByItsPositionWithoutShowingIt() throws {
        let short = "short-previous-secret"
        let error = try loadError(yaml("  previous_secrets:\n    - \(Self.old)\n    - \(short)\n"))
        #expect(error.issues.map(\.code) == [.weakSecret])
        let issue = try #require(error.issues.first)
        #expect(issue.message.hasPrefix("server.previous_secrets[1] must be at least 32 bytes, found 21 bytes"))
        #expect(issue.location?.line == 6)
        #expect(issue.location?.sourceLine == "    - <redacted>")
        #expect(!error.description.contains(short))
        #expect(!error.description.contains(Self.old))
    }

    @Test func refusesAShortOneFromTheEnvironmentAndAFlowList() throws {
        let fromEnvironment = try loadError(
            yaml("  previous_secrets:\n    - ${OLD}\n"), environment: ["OLD": "tiny"])
        #expect(fromEnvironment.issues.map(\.code) == [.weakSecret])
        #expect(fromEnvironment.issues.first?.message.contains("server.previous_secrets[0]") == true)
        // A variable reference names where the secret comes from, not the secret: it stays shown.
        #expect(fromEnvironment.issues.first?.location?.sourceLine == "    - ${OLD}")
        let flow = try loadError(yaml("  previous_secrets: [\(Self.old), tiny]\n"))
        #expect(flow.issues.map(\.code) == [.weakSecret])
        #expect(!flow.description.contains(Self.old))
    }

    @Test func refusesANonList() throws {
        let error = try loadError(yaml("  previous_secrets: \(Self.old)\n"))
        #expect(error.issues.map(\.code) == [.wrongType])
        #expect(error.issues.first?.message.contains("expected a list for server.previous_secrets") == true)
        #expect(!error.description.contains(Self.old))
    }
}
