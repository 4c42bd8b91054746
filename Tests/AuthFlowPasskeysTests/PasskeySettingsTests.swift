import AuthFlow
import AuthFlowDeployment
import AuthFlowMatrix
import AuthFlowPasskeys
import AuthFlowProviders
import Testing

/// `type: passkey` in providers.yaml: defaults from `server.public_url`, positioned errors, the matrix row.
@Suite struct PasskeySettingsTests {
    static func load(_ provider: String, publicURL: String? = "https://example.com") throws(ConfigurationError)
        -> Configuration
    {
        let server = publicURL.map { "  public_url: \($0)\n" } ?? ""
        let yaml = """
            server:
            \(server)  secret: 0123456789abcdef0123456789abcdef
            providers:
              passkey:
                type: passkey
            \(provider)
            """
        return try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
    }

    static func resolve(_ provider: String, publicURL: String? = "https://example.com") throws(ConfigurationError)
        -> ResolvedProvider
    {
        let resolved = try ProviderRegistry.standard.resolve(load(provider, publicURL: publicURL))
        guard let first = resolved.first else { throw ConfigurationError(issues: []) }
        return first
    }

    /// The messages and lines of the issues `provider` is refused with.
    static func issues(_ provider: String, publicURL: String? = "https://example.com") -> [(String, Int?)] {
        do {
            _ = try resolve(provider, publicURL: publicURL)
            return []
        } catch {
            return error.issues.map { ($0.message, $0.location?.line) }
        }
    }

    @Test func defaultsComeFromThePublicURL() throws {
        let provider = try Self.resolve("")
        #expect(provider.plugin is PasskeyPlugin)
        #expect(provider.signInProtocol == .webAuthn)
        #expect(provider.identitySource == .assertion)
        #expect(provider.roundTrips == 0)
        #expect(provider.capabilities.isEmpty)
        let relyingParty = try #require(provider.passkeyRelyingParty)
        #expect(relyingParty.rpID == "example.com")
        #expect(relyingParty.rpName == "example.com")
        #expect(relyingParty.origins == ["https://example.com"])
        #expect(relyingParty.userVerification == .required)
        #expect(relyingParty.attestation == .none)
    }

    @Test func everyKeyIsRead() throws {
        let provider = try Self.resolve(
            """
                rp_id: example.com
                rp_name: Example
                origins: [https://login.example.com, "https://example.com:8443", "android:apk-key-hash:Xy-_0"]
                user_verification: preferred
                attestation: direct
            """, publicURL: "https://app.example.com")
        let relyingParty = try #require(provider.passkeyRelyingParty)
        #expect(relyingParty.rpID == "example.com")
        #expect(relyingParty.rpName == "Example")
        #expect(
            relyingParty.origins == [
                "https://login.example.com", "https://example.com:8443", "android:apk-key-hash:Xy-_0",
            ])
        #expect(relyingParty.userVerification == .preferred)
        #expect(relyingParty.attestation == .direct)
    }

    @Test func rpIDThatIsNoSuffixOfAnOriginIsAnErrorAtTheOrigins() {
        let found = Self.issues(
            """
                rp_id: example.com
                origins: [https://example.com, https://example.org]
            """)
        #expect(found.count == 1)
        #expect(found.first?.0.contains("expected rp_id to be example.org or a registrable suffix of it") == true)
        #expect(found.first?.1 == 8)
        // "notexample.com" ends with "example.com" but is not a subdomain of it.
        let lookalike = Self.issues("    rp_id: example.com\n    origins: [https://notexample.com]")
        #expect(lookalike.count == 1)
    }

    @Test func rpIDAgainstTheDefaultOriginIsAnErrorAtTheRPID() {
        let found = Self.issues("    rp_id: other.example")
        #expect(found.count == 1)
        #expect(found.first?.0.contains("server.public_url's origin https://example.com") == true)
        #expect(found.first?.1 == 7)
    }

    @Test func aSingleLabelRPIDIsRefused() {
        let found = Self.issues("    rp_id: com")
        #expect(found.contains { $0.0.contains("is a single label") })
    }

    @Test func badValuesAreErrorsWithPositions() {
        let cases: [(String, String, Int)] = [
            ("    rp_id: https://example.com", "expected a lowercase host name such as example.com", 7),
            ("    rp_id: Example.com", "expected a lowercase host name", 7),
            ("    origins: [https://example.com/]", "expected an origin such as https://example.com", 7),
            ("    origins: [http://example.com]", "http:// only on a loopback host", 7),
            ("    origins: [HTTPS://EXAMPLE.COM]", "expected an origin", 7),
            ("    origins: [\"android:apk-key-hash:\"]", "expected an origin", 7),
            ("    origins: []", "expected at least one origin", 7),
            ("    user_verification: discouraged", "expected required or preferred", 7),
            ("    attestation: indirect", "expected none or direct", 7),
            ("    client_id: app", "does not take 'client_id'", 7),
            ("    tenant: common", "does not take 'tenant'", 7),
            ("    rp_idd: example.com", "rp_idd", 7),
        ]
        for (yaml, message, line) in cases {
            let found = Self.issues(yaml)
            #expect(found.contains { $0.0.contains(message) && $0.1 == line }, "\(yaml): \(found)")
        }
    }

    @Test func passkeyKeysAreRefusedForOtherTypes() {
        let yaml = """
            server:
              public_url: https://example.com
              secret: 0123456789abcdef0123456789abcdef
            providers:
              google:
                client_id: app
                client_secret: s
                rp_id: example.com
            """
        do {
            let configuration = try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
            _ = try ProviderRegistry.standard.resolve(configuration)
            Issue.record("expected rp_id to be refused for google")
        } catch {
            #expect(error.issues.contains { $0.message.contains("does not take 'rp_id'") && $0.location?.line == 8 })
        }
    }

    @Test func withoutPublicURLTheRelyingPartyMustBeWritten() throws {
        // An embedder's configuration without server.public_url: rp_id and origins have no default.
        var settings = ProviderSettings(
            name: "passkey", type: "passkey",
            location: SourceLocation(fileName: "providers.yaml", line: 2, column: 3, sourceLine: nil))
        let refused = #expect(throws: ConfigurationError.self) {
            try ProviderRegistry.standard.resolve(settings, publicURL: nil)
        }
        #expect(refused?.issues.first?.message.contains("has no rp_id and origins") == true)
        settings.options["rp_id"] = .string("localhost")
        settings.options["origins"] = .strings(["http://localhost:8080"])
        let provider = try ProviderRegistry.standard.resolve(settings, publicURL: nil)
        #expect(provider.passkeyRelyingParty?.rpID == "localhost")
    }

    @Test func theMatrixShowsAWebAuthnRow() throws {
        let provider = try Self.resolve("")
        let matrix = CapabilityMatrix(providers: [provider])
        let text = matrix.render(format: .text)
        #expect(text.contains("WebAuthn"))
        #expect(text.contains("assertion"))
        #expect(matrix.advisories.isEmpty)
        let json = matrix.render(format: .json)
        #expect(
            json.contains("\"identity_source\":\"assertion\"") || json.contains("\"identity_source\": \"assertion\""))
        let html = matrix.render(format: .html)
        #expect(html.contains("WebAuthn"))
    }
}
