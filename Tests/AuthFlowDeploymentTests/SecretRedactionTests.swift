import AuthFlowDeployment
import Testing

@testable import AuthFlow

/// Secrets, file contents and environment values never appear in error text or descriptions.
@Suite struct SecretRedactionTests {
    static let secret = "hunter2-very-secret-value"

    @Test func secretDescriptionsAreRedacted() {
        let secret = Secret(Self.secret)
        #expect("\(secret)" == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains(Self.secret))
    }

    @Test func settingsDescriptionsHideSecrets() throws {
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: ${AUTHFLOW_SECRET}
            providers:
              google:
                client_id: abc
                client_secret: \(Self.secret)
              apple:
                client_id: abc
                private_key_file: key.p8
            """
        let configuration = try makeLoader(
            environment: ["AUTHFLOW_SECRET": Self.secret + Self.secret],
            files: ["key.p8": "-----BEGIN PRIVATE KEY-----\n\(Self.secret)\n-----END PRIVATE KEY-----\n"]
        ).load(yaml: yaml, fileName: "providers.yaml")
        #expect(configuration.provider(named: "google")?.clientSecret?.value == Self.secret)
        for text in [String(describing: configuration), String(reflecting: configuration)] {
            #expect(!text.contains(Self.secret))
        }
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains(Self.secret))
    }

    @Test func errorsNeverQuoteSecretsFromYAMLEnvironmentOrFiles() throws {
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: \(Self.secret)
              signup: ${SIGNUP}
            providers:
              google:
                client_id: abc
                client_secret: \(Self.secret)
                clinet_secret: \(Self.secret)
                issuer: ${ISSUER}
              facebook:
                client_id: "1"
                client_secret_file: secret.txt
                private_key_file: secret.txt
              x:
                client_id: abc
                client_secret: { value: \(Self.secret) }
            """
        let error = try loadError(
            yaml, environment: ["SIGNUP": Self.secret, "ISSUER": "http://\(Self.secret).example"],
            files: ["secret.txt": Self.secret])
        #expect(error.issues.count == 6)
        #expect(!error.description.contains(Self.secret), "\(error.description)")
        #expect(error.description.contains("    client_secret: <redacted>\n"))
        #expect(error.description.contains("    clinet_secret: <redacted>\n"))
        #expect(error.description.contains("found \"${SIGNUP}\" (as set in the environment)"))
    }

    /// A bare `${VAR}` names where a secret comes from, so the source line under an error shows it; a
    /// default (`${VAR:-…}`), a literal or anything more stays redacted.
    @Test func sourceLinesShowAVariableReferenceButNoValue() throws {
        let unset = try loadError(minimalProviders + "    client_secret: ${GOOGLE_CLIENT_SECRET}\n")
        #expect(unset.issues.map(\.code) == [.undefinedVariable])
        #expect(unset.description.contains("\n    client_secret: ${GOOGLE_CLIENT_SECRET}\n"), "\(unset.description)")
        let quoted = try loadError(minimalProviders + "    client_secret: \"${GOOGLE_CLIENT_SECRET}\"\n")
        #expect(quoted.description.contains("\n    client_secret: \"${GOOGLE_CLIENT_SECRET}\"\n"))

        // An error on the line of a reference with a default: the default is not shown.
        let withDefault = try loadError(
            minimalProviders + "    client_secret: ${GOOGLE_CLIENT_SECRET:-\(Self.secret)}: x\n")
        #expect(withDefault.issues.map(\.code) == [.invalidYAML])
        #expect(!withDefault.description.contains(Self.secret))
        #expect(withDefault.description.contains("\n    client_secret: <redacted>\n"))
        #expect(
            ConfigurationReader.redacted("    client_secret: ${GOOGLE_CLIENT_SECRET:-\(Self.secret)}")
                == "    client_secret: <redacted>")
        for value in ["\(Self.secret)${X}", "${X}\(Self.secret)", "${X} \(Self.secret)", "${\(Self.secret)-x}"] {
            let line = "    client_secret: \(value)"
            #expect(ConfigurationReader.redacted(line) == "    client_secret: <redacted>", "\(value)")
        }
        #expect(ConfigurationReader.redacted("    client_secret: ${A_1}") == "    client_secret: ${A_1}")
        #expect(ConfigurationReader.redacted("    client_secret: '${A}'  ") == "    client_secret: '${A}'  ")
    }

    @Test func syntaxErrorsOnCredentialLinesAreRedacted() throws {
        let error = try loadError("providers:\n  google:\n    client_id: a\n    client_secret: \(Self.secret): x\n")
        #expect(error.issues.map(\.code) == [.invalidYAML])
        #expect(!error.description.contains(Self.secret))
        #expect(
            error.description == """
                providers.yaml:4:45: mapping values are not allowed in this context
                    client_secret: <redacted>
                                                            ^
                """)
    }
}
