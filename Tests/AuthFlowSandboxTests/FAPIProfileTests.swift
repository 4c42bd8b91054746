import AuthFlow
import AuthFlowCurl
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Synchronization
import Testing

/// `profile: fapi2` on `type: oidc`: the FAPI 2.0 Security Profile's client requirements in one key, signing in
/// to the sandbox's FAPI mode, and each configuration that contradicts it refused at its key.
extension FAPIModeTests {
    @Test func theFAPI2ProfileSignsInWithTheIssuerAsTheAssertionAudience() async throws {
        let assertions = Mutex<[String]>([])
        let recording = AlteringClient(
            base: Self.client,
            request: { request in
                let fields = FormURLEncoding.decode(String(decoding: request.body ?? [], as: UTF8.self)[...])
                if let assertion = fields.first(where: { $0.0 == "client_assertion" })?.1 {
                    assertions.withLock { $0.append(assertion) }
                }
                return request
            })
        try await withStand(
            configuredKey: try JWK.generateP256(), extra: "    profile: fapi2", httpClient: recording
        ) { stand in
            let provider = try #require(stand.signIn.providers["bank"])
            #expect(provider.dpopAlgorithm == .es256)
            #expect(provider.idTokenAlgorithms == [.ps256])
            let result = try await signIn(stand)
            #expect(result.tokens.tokenType == "DPoP")
            #expect(result.trace.contains { $0.checks.contains("iss_parameter") })
            let issuer = try #require(stand.sandbox.issuer(for: .google))
            let audiences = try assertions.withLock { $0 }.map { assertion in
                let payload = try Base64URL.decode(assertion.split(separator: ".")[1])
                return try JWTClaims(payload: payload).audience
            }
            #expect(audiences.count == 2, "the push and the code exchange")
            #expect(audiences.allSatisfy { $0 == [issuer] })
        }
    }

    @Test func aConfigurationThatContradictsTheFAPI2ProfileIsAPositionedError() async throws {
        try await withStand(configuredKey: try JWK.generateP256()) { stand in
            let issuer = try #require(stand.sandbox.issuer(for: .google))
            let keyFile = stand.directory + "/client.pem"
            let cases: [(extra: String, key: String, mentions: String)] = [
                ("    profile: fapi2\n    dpop: false", "dpop", "dpop: false"),
                ("    profile: fapi2\n    capabilities: { pkce: false }", "pkce", "PKCE"),
            ]
            for (extra, key, mentions) in cases {
                let loaded = try Self.configuration(issuer: issuer, keyFile: keyFile, par: "auto", extra: extra)
                await #expect {
                    _ = try await ProviderRegistry.standard.resolve(loaded, httpClient: Self.client)
                } throws: { error in
                    guard
                        let issue = (error as? ConfigurationError)?.issues.first(where: { $0.message.contains("fapi2") }
                        )
                    else { return false }
                    return issue.message.contains(mentions) && issue.location?.sourceLine?.contains(key) == true
                }
            }
            let off = try Self.configuration(issuer: issuer, keyFile: keyFile, par: "off", extra: "    profile: fapi2")
            await #expect {
                _ = try await ProviderRegistry.standard.resolve(off, httpClient: Self.client)
            } throws: { error in
                (error as? ConfigurationError)?.issues.contains {
                    $0.message.contains("profile: fapi2") && $0.message.contains("par: off")
                        && $0.location?.sourceLine?.contains("par") == true
                } == true
            }
        }
    }

    @Test func theFAPI2ProfileNeedsPushedRequestsAndPrivateKeyJWTFromTheIssuer() async throws {
        // The sandbox's OpenID issuer outside its FAPI mode: no pushed authorization request endpoint.
        let sandbox = SandboxIdentityProvider(
            configuration: SandboxConfiguration(signingKeys: try SandboxHarness.sharedKeys.get()))
        try sandbox.start()
        defer { Task { await sandbox.stop() } }
        let issuer = try #require(sandbox.issuer(for: .google))
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: "0123456789abcdef0123456789abcdef0123"
            providers:
              bank:
                type: oidc
                issuer: \(issuer)
                client_id: fapi-client
                client_secret: a-secret
                client_auth: client_secret_post
                profile: fapi2
              plain:
                type: oauth2
                client_id: c
                client_secret: s
                endpoints: { authorization: "https://as.example/a", token: "https://as.example/t" }
                profile: fapi2
            """
        let loaded = try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
        await #expect {
            _ = try await ProviderRegistry.standard.resolve(loaded, httpClient: Self.client)
        } throws: { error in
            let messages = (error as? ConfigurationError)?.issues.map(\.message) ?? []
            return messages.contains { $0.contains("pushed_authorization_request_endpoint") }
                && messages.contains {
                    $0.contains("client_auth: private_key_jwt") && $0.contains("client_secret_post")
                }
                && messages.contains { $0.contains("type: oidc only") }
        }
    }
}
