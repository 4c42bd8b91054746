import AuthFlow
import AuthFlowDeployment
import Foundation
import Testing

/// The repository's `providers.yaml`, the template users copy.
@Suite struct RootProvidersFileTests {
    static let path = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("providers.yaml").path

    static let secretValues = [
        "AUTHFLOW_SECRET": "authflow-secret-value-0123456789abcdef",
        "GOOGLE_CLIENT_SECRET": "google-secret-value",
        "FACEBOOK_CLIENT_SECRET": "facebook-secret-value",
        "X_CLIENT_SECRET": "x-secret-value",
        "APPLE_TEAM_ID": "TEAM123456",
        "APPLE_KEY_ID": "KEY1234567",
    ]

    /// Writes a PEM-shaped key file to a fresh temporary directory and removes it after `body`.
    func withKeyFile<T>(_ body: (String) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("authflow-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("AuthKey_KEY1234567.p8")
        try "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49\n-----END PRIVATE KEY-----\n"
            .write(to: keyFile, atomically: true, encoding: .utf8)
        return try body(keyFile.path)
    }

    @Test func loadsWithTheVariablesSet() throws {
        try withKeyFile { keyFile in
            var environment = Self.secretValues
            environment["APPLE_PRIVATE_KEY_FILE"] = keyFile
            let configuration = try ConfigurationLoader(environment: environment).load(path: Self.path)
            #expect(configuration.providers.map(\.name) == ["apple", "google", "facebook", "x"])
            #expect(configuration.providers.map(\.type) == ["apple", "google", "facebook", "x"])
            let server = try #require(configuration.server)
            #expect(server.publicURL == "http://localhost:8080")
            #expect(server.secret?.value == Self.secretValues["AUTHFLOW_SECRET"])
            #expect(server.sessionTTL == 8 * 3600)
            #expect(configuration.sandbox?.listen == ListenAddress(host: "127.0.0.1", port: 0))
            #expect(configuration.store.kind == .sqlite)

            let apple = try #require(configuration.provider(named: "apple"))
            #expect(apple.clientID == "com.example.web")
            #expect(apple.audiences == ["com.example.ios"])
            #expect(apple.teamID == "TEAM123456")
            #expect(apple.keyID == "KEY1234567")
            #expect(apple.privateKey?.value.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
            #expect(apple.scopes == ["name", "email"])
            #expect(apple.redirectURI == "http://localhost:8080/auth/apple/callback")

            let google = try #require(configuration.provider(named: "google"))
            #expect(google.clientSecret?.value == "google-secret-value")
            #expect(google.capabilities == ["oidc": true, "pkce": true])

            let facebook = try #require(configuration.provider(named: "facebook"))
            #expect(facebook.clientID == "1234567890")
            #expect(facebook.capabilities == ["pkce": true])

            let x = try #require(configuration.provider(named: "x"))
            #expect(x.clientSecret?.value == "x-secret-value")
            #expect(x.scopes == ["users.read", "tweet.read", "offline.access"])
        }
    }

    @Test func namesEachMissingVariable() throws {
        let error = try #require(throws: ConfigurationError.self) {
            _ = try ConfigurationLoader(environment: [:]).load(path: Self.path)
        }
        #expect(error.issues.allSatisfy { $0.code == .undefinedVariable })
        #expect(
            error.issues.map(\.message) == [
                "environment variable AUTHFLOW_SECRET is not set (needed by server.secret)",
                "environment variable APPLE_TEAM_ID is not set (needed by providers.apple.team_id)",
                "environment variable APPLE_KEY_ID is not set (needed by providers.apple.key_id)",
                "environment variable APPLE_PRIVATE_KEY_FILE is not set (needed by providers.apple.private_key_file)",
                "environment variable GOOGLE_CLIENT_SECRET is not set (needed by providers.google.client_secret)",
                "environment variable FACEBOOK_CLIENT_SECRET is not set (needed by providers.facebook.client_secret)",
                "environment variable X_CLIENT_SECRET is not set (needed by providers.x.client_secret)",
            ])
        #expect(error.issues.allSatisfy { $0.location?.fileName == Self.path })
    }

    @Test func reportsAMissingAppleKeyFile() throws {
        var environment = Self.secretValues
        environment["APPLE_PRIVATE_KEY_FILE"] = "/nonexistent/authflow/AuthKey.p8"
        let error = try #require(throws: ConfigurationError.self) {
            _ = try ConfigurationLoader(environment: environment).load(path: Self.path)
        }
        #expect(
            error.issues.map(\.message)
                == ["cannot read providers.apple.private_key_file \"/nonexistent/authflow/AuthKey.p8\": no such file"])
    }

    @Test func loadsInSandboxModeWithoutAnyVariable() throws {
        let configuration = try ConfigurationLoader(environment: [:], mode: .sandbox).load(path: Self.path)
        #expect(configuration.providers.count == 4)
        #expect(configuration.server?.secret == nil)
        #expect(configuration.providers.allSatisfy { $0.clientSecret == nil && $0.privateKey == nil })
    }
}
