import AuthFlow
import AuthFlowDeployment
import Foundation
import Testing

/// Secrets that the group or others may read are named at start, with the fix and never their content.
@Suite struct SecretFilePermissionTests {
    static let secret = String(repeating: "s3cr3t-", count: 6)

    /// A temporary directory holding `providers.yaml` (inline `server.secret` unless `inline` is false) and a
    /// `client_secret_file`, with the given modes; loaded from disk.
    func load(configMode: Int, secretMode: Int, inline: Bool = true) throws -> (Configuration, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-secret-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let secretFile = directory.appendingPathComponent("google-secret")
        try Data("google-client-secret-value\n".utf8).write(to: secretFile)
        let config = directory.appendingPathComponent("providers.yaml")
        let secretLine = inline ? "  secret: \(Self.secret)\n" : "  secret: ${AUTHFLOW_TEST_SECRET}\n"
        try Data(
            ("server:\n  listen: 127.0.0.1:8080\n  public_url: http://localhost:8080\n" + secretLine
                + "providers:\n  google:\n    type: google\n    client_id: abc\n    client_secret_file: google-secret\n")
                .utf8
        ).write(to: config)
        try FileManager.default.setAttributes([.posixPermissions: secretMode], ofItemAtPath: secretFile.path)
        try FileManager.default.setAttributes([.posixPermissions: configMode], ofItemAtPath: config.path)
        let loader = ConfigurationLoader(environment: ["AUTHFLOW_TEST_SECRET": Self.secret])
        return (try loader.load(path: config.path), directory)
    }

    @Test func filesReadableByGroupOrOthersAreNamedWithTheFix() throws {
        let (configuration, directory) = try load(configMode: 0o644, secretMode: 0o640)
        defer { try? FileManager.default.removeItem(at: directory) }
        let warnings = configuration.secretFilePermissionWarnings()
        #expect(warnings.count == 2)
        let config = directory.appendingPathComponent("providers.yaml").path
        let secret = directory.appendingPathComponent("google-secret").path
        #expect(warnings.contains { $0.hasPrefix("\(config) (holding server.secret)") && $0.contains("mode 644") })
        #expect(warnings.contains { $0.hasPrefix("\(secret) (holding providers.google.client_secret_file)") })
        #expect(warnings.allSatisfy { $0.contains("chmod 600 ") })
        #expect(warnings.contains { $0.hasSuffix("chmod 600 \(secret)") })
        // Never the secrets themselves.
        #expect(!warnings.contains { $0.contains(Self.secret) || $0.contains("google-client-secret-value") })
    }

    @Test func ownerOnlyFilesGiveNoWarning() throws {
        let (configuration, directory) = try load(configMode: 0o600, secretMode: 0o400)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(configuration.secretFiles.count == 2)
        #expect(configuration.secretFilePermissionWarnings().isEmpty)
    }

    @Test func aConfigurationTakingTheSecretFromTheEnvironmentIsNotASecretFile() throws {
        let (configuration, directory) = try load(configMode: 0o644, secretMode: 0o600, inline: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(configuration.secretFiles.map(\.key) == ["providers.google.client_secret_file"])
        #expect(configuration.secretFilePermissionWarnings().isEmpty)
    }

    @Test func eachModeBitForGroupOrOthersWarns() {
        var configuration = Configuration(providers: [])
        configuration.secretFiles = [SecretFile(key: "server.secret", path: "/etc/authflow/it's here.yaml")]
        for bit in [0o040, 0o020, 0o010, 0o004, 0o002, 0o001] {
            let warnings = configuration.secretFilePermissionWarnings { _ in 0o600 | bit }
            #expect(warnings.count == 1, "mode \(String(0o600 | bit, radix: 8))")
            #expect(warnings.first?.hasSuffix(#"chmod 600 '/etc/authflow/it'\''s here.yaml'"#) == true)
        }
        #expect(configuration.secretFilePermissionWarnings { _ in 0o700 }.isEmpty)
        #expect(configuration.secretFilePermissionWarnings { _ in nil }.isEmpty)
    }
}
