import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

/// `type: microsoft` with each `client_auth` against the Entra emulator, which accepts from each client only the
/// method it was registered with: `client_secret_post`, `client_secret_basic`, and `private_key_jwt` with a
/// certificate credential (the certificate named by its thumbprint, `x5t` or `x5t#S256`). Each client configured
/// with another method, a certificate credential whose thumbprint names another certificate, and one registered
/// with a certificate but configured without a thumbprint (`type: oidc`, which sends `kid`) are refused.
@Suite("type: microsoft client authentication against Entra's emulator", .serialized)
struct MicrosoftTypeClientAuthTests {
    static let tenant = SandboxMicrosoftTenant.contoso
    static let secret = "entra+secret/with=odd%chars:"

    /// A self-signed certificate for the `private_key_jwt` key (`E2E.appleClientKey`), made with
    /// `openssl req -x509 -new -key KEY -subj /CN=authflow-entra-test -days 36500 -set_serial 4242`.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBgDCCASegAwIBAgICEJIwCgYIKoZIzj0EAwIwHjEcMBoGA1UEAwwTYXV0aGZs
        b3ctZW50cmEtdGVzdDAgFw0yNjEyMDcwMTMyNDJaGA8yMTI2MTExMzAxMzI0Mlow
        HjEcMBoGA1UEAwwTYXV0aGZsb3ctZW50cmEtdGVzdDBZMBMGByqGSM49AgEGCCqG
        SM49AwEHA0IABMRLxARDGnzytMeT/99ykqisFnUyIb5z3D9M0XXnz4JYih2nHvUL
        9EyLtbO1kVhiHkBfUvgerDUoE+5FoJ6NE0GjUzBRMB0GA1UdDgQWBBQYsVPTrwNV
        ce33FZdExQu04864tTAfBgNVHSMEGDAWgBQYsVPTrwNVce33FZdExQu04864tTAP
        BgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0cAMEQCIF9cGm+UOKcDE+tbnAIc
        7Fj2Up6VIeR5nG4FVGMFPENIAiBuWV62quYNCsL1ZxsSJugX+5ynz6ENEiyVN4OW
        vnSZlQ==
        -----END CERTIFICATE-----
        """
    /// `openssl x509 -noout -fingerprint -sha1` and `-sha256` of that certificate.
    static let sha1Thumbprint = "07:74:68:39:F3:C7:25:8C:C9:BA:6C:D3:09:1D:32:69:8F:27:F5:5D"
    static let sha256Thumbprint =
        "EB89DFD2F4E147B7305EFB8F90F8F8AA7DC7CA9939F999518C001C29258A6537"

    /// The certificate's DER encoding.
    static var certificateDER: [UInt8] {
        let body = certificatePEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Array(Data(base64Encoded: body) ?? Data())
    }

    /// Each configured provider: its name, the registered client, the method configured, the key (thumbprint or
    /// secret) and whether the emulator must accept it.
    struct Case: Sendable {
        var name: String
        var client: String
        var method: String
        var keyID: String? = nil
        var type = "microsoft"
        var accepted: Bool
    }

    static let registered: [(client: String, method: String)] = [
        ("ms-post-app", "client_secret_post"), ("ms-basic-app", "client_secret_basic"),
        ("ms-cert-app", "private_key_jwt"),
    ]

    static let cases: [Case] = [
        Case(name: "ms-post", client: "ms-post-app", method: "client_secret_post", accepted: true),
        Case(name: "ms-basic", client: "ms-basic-app", method: "client_secret_basic", accepted: true),
        Case(name: "ms-x5t", client: "ms-cert-app", method: "private_key_jwt", keyID: sha1Thumbprint, accepted: true),
        Case(
            name: "ms-x5t256", client: "ms-cert-app", method: "private_key_jwt", keyID: sha256Thumbprint,
            accepted: true),
        // Another method than the registered one.
        Case(name: "ms-post-as-basic", client: "ms-post-app", method: "client_secret_basic", accepted: false),
        Case(name: "ms-basic-as-post", client: "ms-basic-app", method: "client_secret_post", accepted: false),
        Case(name: "ms-cert-as-post", client: "ms-cert-app", method: "client_secret_post", accepted: false),
        Case(
            name: "ms-post-as-cert", client: "ms-post-app", method: "private_key_jwt", keyID: sha1Thumbprint,
            accepted: false),
        // The right key, but the thumbprint of another certificate.
        Case(
            name: "ms-other-cert", client: "ms-cert-app", method: "private_key_jwt",
            keyID: String(repeating: "ab", count: 32), accepted: false),
        // The right key, no thumbprint at all (a `type: oidc` assertion carries `kid`).
        Case(
            name: "ms-no-thumbprint", client: "ms-cert-app", method: "private_key_jwt", keyID: E2E.appleKeyID,
            type: "oidc", accepted: false),
    ]

    static func providers(_ urls: World.URLs) -> String {
        var yaml = ""
        for item in cases {
            let location =
                item.type == "microsoft"
                ? "    tenant: \(tenant.id)\n    base_url: \(urls.sandbox)/microsoft\n"
                : "    issuer: \(urls.sandbox)/microsoft/\(tenant.id)/v2.0\n"
            let key =
                item.method == "private_key_jwt"
                ? "    private_key_file: AuthKey.p8\n    key_id: \"\(item.keyID ?? "")\"\n"
                : "    client_secret: \"\(secret)\"\n"
            yaml += """
                  \(item.name):
                    type: \(item.type)
                    client_id: \(item.client)
                    client_auth: \(item.method)
                    redirect_uri: \(urls.app)/auth/\(item.name)/callback

                """ + location + key
        }
        return yaml
    }

    static func run(_ body: (World) async throws -> Void) async throws {
        try await World.run(World.Options(extraProviders: providers)) { world in
            let key = try E2E.appleClientKey.get()
            for (client, method) in registered {
                let redirects = cases.filter { $0.client == client }.map { world.app.callbackURL($0.name) }
                let certificate = method == "private_key_jwt"
                try world.sandbox.register(
                    .microsoft(
                        clientID: client, clientSecret: certificate ? nil : secret, redirectURIs: redirects,
                        authMethod: SandboxClient.AuthMethod(rawValue: method),
                        assertionKeys: certificate ? [key] : [], certificate: certificate ? certificateDER : nil))
            }
            try await body(world)
        }
    }

    @Test func eachRegisteredMethodSignsInAndEveryMismatchIsRefused() async throws {
        #expect(Self.certificateDER.count > 300)
        #expect(Base64URL.encode(Digest.sha1(Self.certificateDER)) == Base64URL.encode(Self.hex(Self.sha1Thumbprint)))
        #expect(
            Base64URL.encode(Digest.sha256(Self.certificateDER)) == Base64URL.encode(Self.hex(Self.sha256Thumbprint)))
        try await Self.run { world in
            for item in Self.cases {
                let provider = try #require(world.providers.first { $0.name == item.name })
                #expect(provider.type == item.type)
                #expect(provider.clientAuthentication.rawValue == item.method)
                let attempt = try await world.signIn(item.name)
                if item.accepted {
                    let identity = try attempt.identity
                    #expect(identity.provider == item.name, "\(item.name) should sign in")
                    #expect(identity.subject.hasPrefix(Self.tenant.id.lowercased() + ":"))
                } else {
                    #expect(attempt.error?.code == .tokenEndpointError, "\(item.name) should be refused")
                    #expect(attempt.error?.providerError == "invalid_client", "\(item.name)")
                }
            }
        }
    }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter(\.isHexDigit))
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16) ?? 0 }
    }
}
