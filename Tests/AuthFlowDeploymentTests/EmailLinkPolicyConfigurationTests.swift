import AuthFlow
import AuthFlowDeployment
import Testing

@Suite("server.link_by_verified_email: a boolean or a list of configured provider names")
struct EmailLinkPolicyConfigurationTests {
    static func yaml(_ value: String) -> String {
        """
        server:
          public_url: http://localhost:8080
          secret: 0123456789abcdef0123456789abcdef
          link_by_verified_email: \(value)
        providers:
          apple:
            type: apple
            client_id: com.example.web
            team_id: ABCDE12345
            key_id: KEY1234567
            private_key_file: key.p8
          google:
            type: google
            client_id: abc
            client_secret: s
        """
    }

    static let files = ["key.p8": "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n"]

    func policy(_ value: String) throws -> EmailLinkPolicy? {
        try makeLoader(files: Self.files).load(yaml: Self.yaml(value), fileName: "providers.yaml").server?
            .linkByVerifiedEmail
    }

    @Test func readsBooleansAndLists() throws {
        #expect(try policy("true") == .allProviders)
        #expect(try policy("false") == .off)
        #expect(try policy("[apple, google]") == .providers(["apple", "google"]))
        #expect(try policy("[]") == .providers([]))
    }

    @Test func anUnknownProviderNameIsAnErrorAtItsPosition() throws {
        let error = try loadError(Self.yaml("[apple, gogle]"), files: Self.files)
        #expect(error.issues.map(\.code) == [.invalidValue])
        #expect(
            error.description == """
                providers.yaml:4:35: expected the name of a provider configured under providers: in \
                server.link_by_verified_email, found "gogle"; did you mean "google"?
                  link_by_verified_email: [apple, gogle]
                                                  ^
                """)
    }

    @Test func anotherScalarIsAWrongType() throws {
        let error = try loadError(Self.yaml("apple"), files: Self.files)
        #expect(error.issues.map(\.code) == [.wrongType])
        #expect(error.issues.first?.location?.line == 4)
    }
}

@Suite("Loopback hosts: the parsed host, never a prefix")
struct LoopbackHostTests {
    @Test func acceptsExactlyLocalhostThe127NetworkAndIPv6Loopback() {
        for host in ["localhost", "LOCALHOST", "127.0.0.1", "127.255.0.9", "::1", "[::1]"] {
            #expect(LoopbackHost.contains(host), "\(host)")
        }
    }

    @Test func refusesNamesThatOnlyStartLikeLoopback() {
        let hosts = [
            "127.attacker.example", "localhost.example", "127.0.0.1.nip.io", "127.0.0", "127.0.0.1x", "127.0.0.256",
            "::2", "", "128.0.0.1", "127.0.0.\u{0661}",
        ]
        for host in hosts {
            #expect(!LoopbackHost.contains(host), "\(host)")
        }
    }
}
