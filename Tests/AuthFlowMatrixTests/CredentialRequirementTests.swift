import AuthFlow
import AuthFlowDeployment
import AuthFlowProviders
import Testing

/// `ProviderRegistry.resolve(_:credentials:)`: a report may describe a template whose secrets are not set.
@Suite struct CredentialRequirementTests {
    static let template = """
        server:
          public_url: https://app.example
        providers:
          apple:
            client_id: com.example.web
            team_id: ${APPLE_TEAM_ID}
            key_id: ${APPLE_KEY_ID}
            private_key_file: ${APPLE_PRIVATE_KEY_FILE}
          google:
            client_id: a
            client_secret: ${GOOGLE_CLIENT_SECRET}
          facebook:
            client_id: "1"
            client_secret_file: /nonexistent/facebook-secret
        """

    static func load(_ yaml: String) throws -> Configuration {
        try ConfigurationLoader(environment: [:], mode: .sandbox).load(yaml: yaml, fileName: "t.yaml")
    }

    @Test func writtenButUnresolvedCredentialsResolveWithKeys() throws {
        let providers = try ProviderRegistry.standard.resolve(Self.load(Self.template), credentials: .keys)
        #expect(providers.map(\.name) == ["apple", "google", "facebook"])
        #expect(providers.allSatisfy { $0.settings.clientSecret == nil && $0.settings.privateKey == nil })
    }

    @Test func theDefaultStillRequiresCredentialValues() throws {
        let configuration = try Self.load(Self.template)
        let error = #expect(throws: ConfigurationError.self) {
            try ProviderRegistry.standard.resolve(configuration)
        }
        let messages = error?.issues.map(\.message) ?? []
        #expect(messages.contains("provider 'google' (type google) requires 'client_secret' (or 'client_secret_file')"))
        #expect(messages.contains("provider 'apple' (type apple) requires 'private_key_file'"))
        #expect(error?.issues.allSatisfy { $0.code == .missingRequiredKey } == true)
    }

    @Test func aCredentialKeyThatIsNotWrittenIsStillMissing() throws {
        let configuration = try Self.load(
            """
            server:
              public_url: https://app.example
            providers:
              google:
                client_id: a
              apple:
                client_id: com.example.web
                team_id: ${APPLE_TEAM_ID}
                private_key_file: ${APPLE_PRIVATE_KEY_FILE}
            """)
        let error = #expect(throws: ConfigurationError.self) {
            try ProviderRegistry.standard.resolve(configuration, credentials: .keys)
        }
        #expect(
            error?.issues.map(\.message) == [
                "provider 'google' (type google) requires 'client_secret' (or 'client_secret_file')",
                "provider 'apple' (type apple) requires 'key_id'",
            ])
    }

    @Test func credentialsThatHaveValuesAreStillChecked() throws {
        let configuration = try ConfigurationLoader(
            environment: [:], mode: .sandbox,
            readFile: { _ in "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" }
        ).load(
            yaml: """
                server:
                  public_url: https://app.example
                providers:
                  apple:
                    client_id: com.example.web
                    team_id: T
                    key_id: K
                    private_key_file: key.p8
                """, fileName: "t.yaml")
        let error = #expect(throws: ConfigurationError.self) {
            try ProviderRegistry.standard.resolve(configuration, credentials: .keys)
        }
        #expect(error?.issues.map(\.code.rawValue) == ["invalid_value"])
    }

    @Test func structuralProblemsAreReportedWhateverTheRequirement() throws {
        let configuration = try Self.load(
            """
            server:
              public_url: https://app.example
            providers:
              x:
                client_id: abc
                client_secret: ${X_SECRET}
                capabilities: { oidc: true }
            """)
        let error = #expect(throws: ConfigurationError.self) {
            try ProviderRegistry.standard.resolve(configuration, credentials: .keys)
        }
        #expect(error?.issues.map(\.code.rawValue) == ["unsupported_capability"])
    }
}
