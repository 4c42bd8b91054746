import AuthFlow
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import Testing

/// The Google plugin's `hosted_domain` check on both identity paths: the id_token's claims (OpenID Connect)
/// and userinfo (`oidc: false`), each refusing a missing or different `hd` whatever the email says.
@Suite("Google plugin: hosted_domain on the id_token and userinfo paths")
struct GoogleHostedDomainPluginTests {
    static func provider(oidc: Bool = true, hostedDomain: String? = "example.com") throws -> ResolvedProvider {
        var settings = Fixtures.settings("google", capabilities: oidc ? [:] : ["oidc": false])
        var options = ProviderOptions()
        options["hosted_domain"] = hostedDomain.map { .string($0) }
        settings.options = options
        return try Fixtures.resolve(settings)
    }

    static func claims(hd: String?) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [
            "sub": "1001", "email": "dana@example.com", "email_verified": true, "name": "Dana",
        ]
        if let hd { claims["hd"] = .string(hd) }
        return claims
    }

    @Test(arguments: [true, false])
    func theConfiguredDomainPassesInAnyCase(_ oidc: Bool) throws {
        let provider = try Self.provider(oidc: oidc)
        for hd in ["example.com", "EXAMPLE.com"] {
            let identity =
                oidc
                ? try provider.plugin.identity.identity(
                    fromIDToken: JWTClaims(json: Self.claims(hd: hd)), provider: provider)
                : try provider.plugin.identity.identity(
                    fromUserinfo: [.object(Self.claims(hd: hd))], provider: provider)
            #expect(identity.subject == "1001")
            #expect(identity.email == "dana@example.com")
        }
    }

    @Test(arguments: [true, false])
    func aMissingOrOtherHdIsRefusedWhateverTheEmail(_ oidc: Bool) throws {
        let provider = try Self.provider(oidc: oidc)
        for hd in [nil, "example.org", "sub.example.com", "example.com.evil.example"] as [String?] {
            let error = #expect(throws: SignInError.self) {
                oidc
                    ? try provider.plugin.identity.identity(
                        fromIDToken: JWTClaims(json: Self.claims(hd: hd)), provider: provider)
                    : try provider.plugin.identity.identity(
                        fromUserinfo: [.object(Self.claims(hd: hd))], provider: provider)
            }
            #expect(error?.code.rawValue == "hosted_domain_mismatch", "\(hd ?? "no hd")")
            #expect(error?.claim == "hd")
            #expect(error?.statusHint == 403)
        }
    }

    @Test func withoutHostedDomainNoHdIsNeeded() throws {
        let provider = try Self.provider(hostedDomain: nil)
        let identity = try provider.plugin.identity.identity(
            fromIDToken: JWTClaims(json: Self.claims(hd: nil)), provider: provider)
        #expect(identity.subject == "1001")
    }

    @Test func anotherProviderTypeDoesNotTakeIt() {
        var github = ProviderSettings(
            name: "github", type: "github", clientID: "c", clientSecret: Secret("s"), location: Fixtures.location(),
            keyLocations: ["hosted_domain": Fixtures.location(7, 5)])
        github.options["hosted_domain"] = .string("example.com")
        let issues = Fixtures.issues(github)
        #expect(issues.first?.location?.line == 7)
        #expect(issues.first?.message.contains("does not take 'hosted_domain'") == true)
    }
}
