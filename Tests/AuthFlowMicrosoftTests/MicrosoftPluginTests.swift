import AuthFlow
import AuthFlowJOSE
import AuthFlowMicrosoft
import AuthFlowProviderTestSupport
import AuthFlowProviders
import Foundation
import Testing

@Suite struct MicrosoftPluginTests {
    static let contoso = "11111111-2222-4333-8444-555555555555"
    static let fabrikam = "99999999-8888-4777-8666-555555555555"

    static func settings(
        tenant: String? = "organizations", allowed: [String]? = [contoso], anyTenant: Bool? = nil,
        baseURL: String? = nil
    ) -> ProviderSettings {
        var keys: [String: AuthFlow.SourceLocation] = [:]
        if tenant != nil { keys["tenant"] = Fixtures.location(4, 5) }
        if allowed != nil { keys["allowed_tenants"] = Fixtures.location(5, 5) }
        if anyTenant != nil { keys["allow_any_tenant"] = Fixtures.location(6, 5) }
        var settings = ProviderSettings(
            name: "ms", type: "microsoft", clientID: "client-id", clientSecret: Secret("app-secret"),
            location: Fixtures.location(), keyLocations: keys)
        settings.options["tenant"] = tenant.map { .string($0, at: Fixtures.location(4, 5)) }
        settings.options["allowed_tenants"] = allowed.map { .strings($0, at: Fixtures.location(5, 5)) }
        settings.options["allow_any_tenant"] = anyTenant.map { .bool($0, at: Fixtures.location(6, 5)) }
        settings.options["base_url"] = baseURL.map { .string($0) }
        return settings
    }

    /// Signs in with an id_token of `tid`, whose `iss` names `issuerTenant` (default: the same tenant).
    func signIn(
        _ settings: ProviderSettings, tid: String, issuerTenant: String? = nil, extra: [String: JSONValue] = [:]
    ) throws -> OAuthFlow.IdentityAction {
        let provider = try Fixtures.resolve(settings)
        var (flow, _, _) = Fixtures.exchange(provider)
        let t = Int64(Fixtures.now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string("https://login.microsoftonline.com/\(issuerTenant ?? tid)/v2.0"), "sub": "pairwise-sub",
            "aud": "client-id", "exp": .integer(t + 300), "iat": .integer(t), "nonce": .string(Fixtures.secrets.nonce),
            "tid": .string(tid), "oid": "00000000-0000-4000-8000-0000000000aa", "name": "Ada",
            "email": "ada@contoso.example",
        ]
        claims.merge(extra) { _, new in new }
        return flow.tokensReceived(Fixtures.tokenResponse(idToken: try Fixtures.idToken(claims)))
    }

    @Test func buildsTheTenantEndpointsAndTemplateIssuer() throws {
        let provider = try Fixtures.resolve(Self.settings())
        #expect(
            provider.endpoints.authorization == "https://login.microsoftonline.com/organizations/oauth2/v2.0/authorize")
        #expect(provider.endpoints.token == "https://login.microsoftonline.com/organizations/oauth2/v2.0/token")
        #expect(provider.endpoints.jwks == "https://login.microsoftonline.com/organizations/discovery/v2.0/keys")
        #expect(provider.issuer == "https://login.microsoftonline.com/{tenantid}/v2.0")
        #expect(provider.capabilities == [.oidc, .pkce])
        #expect(provider.scopes == ["openid", "profile", "email"])
        #expect(provider.clientAuthentication == .clientSecretPost)
        let local = try Fixtures.resolve(Self.settings(baseURL: "http://127.0.0.1:9000/ms/"))
        #expect(local.endpoints.token == "http://127.0.0.1:9000/ms/organizations/oauth2/v2.0/token")
        #expect(local.issuer == "http://127.0.0.1:9000/ms/{tenantid}/v2.0")
        let single = try Fixtures.resolve(Self.settings(tenant: Self.contoso, allowed: nil))
        #expect(single.issuer == "https://login.microsoftonline.com/\(Self.contoso)/v2.0")
        let consumers = try Fixtures.resolve(Self.settings(tenant: "consumers", allowed: nil))
        #expect(consumers.issuer == "https://login.microsoftonline.com/\(MicrosoftPlugin.consumersTenantID)/v2.0")
    }

    @Test func acceptsAnAllowedTenantWithTidAndOidAsSubject() throws {
        let action = try signIn(
            Self.settings(), tid: Self.contoso,
            extra: ["groups": .array(["g-1", "g-2"]), "roles": .array(["Admin"])])
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.identity.subject == "\(Self.contoso):00000000-0000-4000-8000-0000000000aa")
        // App roles are roles, never groups: a group rule cannot be met by a role of the same name.
        #expect(result.identity.groups == ["g-1", "g-2"])
        #expect(result.identity.roles == ["Admin"])
        #expect(result.identity.tenant == Self.contoso.lowercased())
        #expect(result.identity.email == "ada@contoso.example")
        #expect(!result.identity.emailVerified)
        #expect(!result.identity.emailLinkable)
    }

    @Test func statesTenantsAsGUIDsOnly() throws {
        let plugin = MicrosoftPlugin().preparation
        #expect(plugin.isTenant(Self.contoso) && plugin.isTenant(Self.contoso.uppercased()))
        #expect(!plugin.isTenant("contoso.onmicrosoft.com") && !plugin.isTenant("organizations"))
    }

    @Test func refusesATenantNotAllowed() throws {
        let error = try signIn(Self.settings(), tid: Self.fabrikam).failure
        #expect(error?.code == .tenantNotAllowed)
        #expect(error?.statusHint == 403)
        #expect(error?.message.contains(Self.fabrikam) == true)
    }

    @Test func refusesAnIssuerOfAnotherTenantThanTid() throws {
        // Signed by the provider's key, allowed tid, but `iss` names another tenant.
        let error = try signIn(Self.settings(), tid: Self.contoso, issuerTenant: Self.fabrikam).failure
        #expect(error?.code == .idTokenInvalid)
        #expect(error?.joseCode == .issuerMismatch)
        #expect(error?.claim == "iss")
        // The template itself is never an accepted issuer.
        let literal = try signIn(Self.settings(), tid: Self.contoso, issuerTenant: "{tenantid}").failure
        #expect(literal?.joseCode == .issuerMismatch)
        // A tid that is no GUID cannot fill the template.
        let spliced = try signIn(
            Self.settings(allowed: nil, anyTenant: true), tid: "evil.example", issuerTenant: "evil.example")
        #expect(spliced.failure?.joseCode == .issuerMismatch)
    }

    @Test func aSingleTenantAcceptsOnlyItsOwnIssuer() throws {
        let settings = Self.settings(tenant: Self.contoso, allowed: nil)
        guard case .complete = try signIn(settings, tid: Self.contoso) else {
            Issue.record("expected the tenant's own token to be accepted")
            return
        }
        #expect(try signIn(settings, tid: Self.fabrikam).failure?.joseCode == .issuerMismatch)
        // Same issuer, another tid inside: refused too.
        let mixed = try signIn(settings, tid: Self.fabrikam, issuerTenant: Self.contoso).failure
        #expect(mixed?.code == .idTokenInvalid)
        #expect(mixed?.claim == "iss")
    }

    @Test func allowAnyTenantAcceptsEveryTenant() throws {
        guard case .complete = try signIn(Self.settings(allowed: nil, anyTenant: true), tid: Self.fabrikam) else {
            Issue.record("expected any tenant to be accepted")
            return
        }
    }

    @Test func theEmailIsLinkableOnlyWhenMicrosoftStatesItVerified() throws {
        for (extra, verified) in [
            (["xms_edov": JSONValue.bool(true)], true), (["xms_edov": "1"], true), (["xms_edov": "true"], true),
            (["xms_edov": .bool(false)], false), (["xms_edov": "0"], false), ([:], false),
            (["email_verified": .bool(true)], false),
            (["verified_primary_email": .array(["ADA@contoso.example"])], true),
            (["verified_primary_email": .array(["other@contoso.example"])], false),
        ] {
            guard case .complete(let result) = try signIn(Self.settings(), tid: Self.contoso, extra: extra) else {
                Issue.record("expected completion with \(extra)")
                continue
            }
            #expect(result.identity.emailVerified == verified, "\(extra)")
            #expect(result.identity.emailLinkable == verified, "\(extra)")
        }
    }

    @Test func refusesMissingOid() throws {
        let error = try signIn(Self.settings(), tid: Self.contoso, extra: ["oid": .null]).failure
        #expect(error?.code == .idTokenInvalid)
        #expect(error?.claim == "oid")
    }

    @Test func configurationErrorsNameTheKeyAndItsPosition() {
        let missing = Fixtures.issues(Self.settings(allowed: nil))
        #expect(missing.map(\.code.rawValue) == ["missing_required_key"])
        #expect(missing.first?.location?.line == 4)
        #expect(missing.first?.message.contains("allowed_tenants") == true)

        let both = Fixtures.issues(Self.settings(anyTenant: true))
        #expect(both.first?.location?.line == 6)

        let notGUID = Fixtures.issues(Self.settings(allowed: ["contoso.onmicrosoft.com"]))
        #expect(notGUID.map(\.code.rawValue) == ["invalid_value"])
        #expect(notGUID.first?.location?.line == 5)

        let domain = Fixtures.issues(Self.settings(tenant: "contoso.onmicrosoft.com", allowed: nil))
        #expect(domain.first?.location?.line == 4)
        #expect(domain.first?.message.contains("GUID") == true)

        let single = Fixtures.issues(Self.settings(tenant: Self.contoso))
        #expect(single.first?.location?.line == 5)

        // Another type does not take the Microsoft keys.
        var google = Fixtures.settings("google")
        google = ProviderSettings(
            name: "google", type: "google", clientID: "c", clientSecret: Secret("s"), location: Fixtures.location(),
            keyLocations: ["tenant": Fixtures.location(7, 5)])
        google.options["tenant"] = .string("common")
        let foreign = Fixtures.issues(google)
        #expect(foreign.first?.location?.line == 7)
        #expect(foreign.first?.message.contains("does not take 'tenant'") == true)
    }
}
