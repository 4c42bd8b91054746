import AuthFlow
import AuthFlowMatrix
import Foundation
import Testing

/// Advisories are derived from the resolved providers and say what to change in the YAML.
@Suite struct AdvisoryTests {
    static func yaml(_ providers: String, server: Bool = true) -> String {
        (server ? "server:\n  public_url: https://app.example\n" : "")
            + "providers:\n" + (server ? providers : providers + "\n    redirect_uri: https://app.example/cb")
    }

    static func matrix(_ providers: String, server: Bool = true, options: OAuthFlow.Options = .init()) throws
        -> CapabilityMatrix
    {
        let resolved = try MatrixTestSupport.providers(yaml: yaml(providers, server: server))
        return CapabilityMatrix(providers: resolved, storesTokens: server, options: options)
    }

    @Test func aMicrosoftTenantOpenToEveryOrganizationIsAdvised() throws {
        let open = try Self.matrix(
            """
              ms:
                type: microsoft
                client_id: a
                client_secret: ${S}
                tenant: organizations
                allow_any_tenant: true
            """)
        #expect(
            open.advisories.map(\.text).contains(
                "ms: every Entra tenant's users can sign in (allow_any_tenant: true), and anyone can create a tenant; "
                    + "set allowed_tenants to the tenant ids that may sign in"))
        let listed = try Self.matrix(
            """
              ms:
                type: microsoft
                client_id: a
                client_secret: ${S}
                tenant: organizations
                allowed_tenants: [11111111-2222-4333-8444-555555555555]
            """)
        #expect(!listed.advisories.contains { $0.code.rawValue == "any_tenant" })
    }

    @Test func aGroupRuleNamingNoProviderIsAdvisedOnEveryRowWhenSeveralProvidersAreConfigured() throws {
        let resolved = try MatrixTestSupport.providers(
            yaml: Self.yaml(
                """
                  google:
                    client_id: a
                    client_secret: ${S}
                  x:
                    client_id: a
                    client_secret: ${S}
                """))
        func advised(_ access: AccessRules, _ providers: [ResolvedProvider] = resolved) -> [String] {
            CapabilityMatrix(providers: providers, access: access).advisories
                .filter { $0.code.rawValue == "unqualified_access_rule" }.map(\.text)
        }
        #expect(
            advised(AccessRules(groups: ["admins", "google:ops"], roles: ["*:app:Admin"])) == [
                "google: server.access.groups names admins without a provider, so that name from any of the 2 "
                    + "configured providers passes it; set server.access.groups to PROVIDER:admins (or "
                    + "PROVIDER/TENANT:admins), naming the provider that should vouch for it",
                "google: server.access.roles names app:Admin without a provider, so that name from any of the 2 "
                    + "configured providers passes it; set server.access.roles to PROVIDER:app:Admin (or "
                    + "PROVIDER/TENANT:app:Admin), naming the provider that should vouch for it",
                "x: server.access.groups names admins without a provider, so that name from any of the 2 "
                    + "configured providers passes it; set server.access.groups to PROVIDER:admins (or "
                    + "PROVIDER/TENANT:admins), naming the provider that should vouch for it",
                "x: server.access.roles names app:Admin without a provider, so that name from any of the 2 "
                    + "configured providers passes it; set server.access.roles to PROVIDER:app:Admin (or "
                    + "PROVIDER/TENANT:app:Admin), naming the provider that should vouch for it",
            ])
        #expect(advised(AccessRules(groups: ["google:admins"], roles: ["x:Admin"])) == [])
        #expect(advised(AccessRules(groups: ["admins"]), Array(resolved.prefix(1))) == [])
    }

    @Test func oidcOffSaysWhatToSetAndTheRoundTripSaved() throws {
        let matrix = try Self.matrix(
            """
              google:
                client_id: a
                client_secret: ${S}
                capabilities: { oidc: false }
                authorization_params: { access_type: offline }
            """)
        #expect(
            matrix.advisories.map(\.text) == [
                "google: OIDC available but off — identity trusted over TLS only; set capabilities.oidc: true "
                    + "(one round trip fewer)"
            ])
        let advisory = try #require(matrix.advisories.first)
        #expect(advisory.code == .capabilityOff)
        #expect(advisory.capability == .oidc)
        #expect(advisory.severity == .hardening)
        #expect(advisory.change.contains(.yaml("capabilities.oidc: true")))
    }

    @Test func pkceOffIsAdvisedOnlyWhereThePluginOffersIt() throws {
        let matrix = try Self.matrix(
            """
              facebook:
                client_id: "1"
                client_secret: ${S}
                capabilities: { pkce: false }
              apple:
                client_id: com.example
                team_id: ${T}
                key_id: ${K}
                private_key_file: ${P}
            """)
        let hardening = matrix.advisories.filter { $0.severity == .hardening }
        #expect(hardening.map(\.provider) == ["facebook"])
        #expect(hardening.first?.text.hasPrefix("facebook: PKCE available but off") == true)
        #expect(hardening.first?.changeText == "set capabilities.pkce: true")
        // Apple cannot do PKCE: no advice to switch it on.
        #expect(!matrix.advisories.contains { $0.provider == "apple" && $0.capability == .pkce })
    }

    @Test func hardenedSwitchesLeaveNoHardeningAdvice() throws {
        let matrix = try Self.matrix(
            """
              google:
                client_id: a
                client_secret: ${S}
                authorization_params: { access_type: offline }
              facebook:
                client_id: "1"
                client_secret: ${S}
            """)
        #expect(matrix.advisories.isEmpty)
        #expect(matrix.render(format: .text).contains("Hardening advice: none (every available hardening is on)"))
    }

    @Test func appleNoteReportsTheClientSecretLifetimeTheFlowUses() throws {
        let apple = """
              apple:
                client_id: com.example
                team_id: ${T}
                key_id: ${K}
                private_key_file: ${P}
            """
        let standard = try Self.matrix(apple)
        let note = try #require(standard.advisories.first { $0.code == .clientSecretLifetime })
        #expect(note.severity == .note)
        #expect(note.finding.contains("valid 300 s"))
        #expect(note.finding.contains("15777000 s"))
        #expect(note.change.contains(.yaml("private_key_file")))
        let longer = try Self.matrix(apple, options: OAuthFlow.Options(clientSecretLifetime: 3600))
        #expect(longer.advisories.first { $0.code == .clientSecretLifetime }?.finding.contains("valid 3600 s") == true)
    }

    @Test func storedTokensWithoutOfflineAccessAskForTheScope() throws {
        let x = """
              x:
                client_id: abc
                client_secret: ${S}
            """
        let advisory = try #require(try Self.matrix(x).advisories.first { $0.code == .noRefreshToken })
        #expect(
            advisory.text
                == "x: no offline.access scope — X issues no refresh token, so stored tokens lapse with the access "
                + "token; add offline.access to scopes")
        // Without a server (nothing stored), or with the scope, there is nothing to say.
        #expect(try Self.matrix(x, server: false).advisories.isEmpty)
        let withScope = try Self.matrix(
            """
              x:
                client_id: abc
                client_secret: ${S}
                scopes: [users.read, tweet.read, offline.access]
            """)
        #expect(withScope.advisories.isEmpty)
    }

    @Test func storedGoogleTokensWithoutOfflineAccessAskForAccessTypeOffline() throws {
        let google = """
              google:
                client_id: a
                client_secret: ${S}
            """
        let advisory = try #require(try Self.matrix(google).advisories.first { $0.code == .noRefreshToken })
        #expect(advisory.severity == .note)
        #expect(
            advisory.text
                == "google: no access_type=offline — Google issues no refresh token, so stored tokens lapse with the "
                + "access token; add authorization_params: { access_type: offline }")
        #expect(try Self.matrix(google, server: false).advisories.isEmpty)
        #expect(try Self.matrix(google + "\n    authorization_params: { access_type: offline }").advisories.isEmpty)
        // Another access_type, or other parameters only, still get no refresh token.
        let online = try Self.matrix(google + "\n    authorization_params: { access_type: online, prompt: consent }")
        #expect(online.advisories.map(\.code) == [.noRefreshToken])
    }

    @Test func advisoriesFollowConfigurationOrderThenRuleOrder() throws {
        let matrix = try CapabilityMatrix(providers: MatrixTestSupport.providers("examples/plain.yaml"))
        #expect(
            matrix.advisories.map { "\($0.provider) \($0.code)\($0.capability.map { " \($0)" } ?? "")" } == [
                "apple client_secret_lifetime", "google capability_off oidc", "google capability_off pkce",
                "google no_refresh_token", "facebook capability_off pkce", "x no_refresh_token",
            ])
    }
}

/// `client_auth` advice: private_key_jwt is the hardened choice where the provider allows it.
@Suite struct ClientAuthAdvisoryTests {
    static let corp = """
          corp:
            type: oauth2
            client_id: app
            client_secret: ${S}
            endpoints:
              authorization: https://sso.corp.example/authorize
              token: https://sso.corp.example/token
              userinfo: https://sso.corp.example/me
            claims: {subject: id}
        """

    @Test func aStaticSecretWherePrivateKeyJWTIsAllowedIsAdvised() throws {
        let matrix = try AdvisoryTests.matrix(Self.corp)
        let advisory = try #require(matrix.advisories.first { $0.code == .clientAuthentication })
        #expect(advisory.severity == .hardening)
        #expect(advisory.text.contains("private_key_jwt is the hardened choice"))
        #expect(advisory.change.contains(.yaml("client_auth: private_key_jwt")))
        #expect(matrix.rows.first?.clientAuthentication == .clientSecretBasic)
    }

    /// `type: oauth2` pushes its requests with `endpoints.pushed_authorization_request` (RFC 9126), and the matrix
    /// shows it, with the push counted among the round trips; `request_object: signed` shows too.
    @Test func theMatrixShowsPushedRequestsAndRequestObjects() throws {
        let pushing = Self.corp.replacingOccurrences(
            of: "      userinfo: https://sso.corp.example/me",
            with:
                "      userinfo: https://sso.corp.example/me\n      pushed_authorization_request: https://sso.corp.example/par"
        )
        let matrix = try AdvisoryTests.matrix(
            pushing + "\n    client_auth: private_key_jwt\n    private_key_file: ${K}\n    request_object: signed")
        let row = try #require(matrix.rows.first)
        #expect(row.pushedAuthorization && row.signedRequestObject)
        #expect(row.roundTrips == 3)
        let json = try JSONValue.parse(Array(matrix.render(format: .json).utf8))
        let object = json["providers"]?.arrayValue?.first
        #expect(object?["par"] == .bool(true))
        #expect(object?["request_object"] == .bool(true))
        #expect(object?["dpop"] == .bool(false) && object?["profile"] == .null)
        let bound = try #require(try AdvisoryTests.matrix(pushing + "\n    dpop: true").rows.first)
        #expect(bound.dpop && bound.profile == nil)
        let plain = try #require(try AdvisoryTests.matrix(Self.corp).rows.first)
        #expect(!plain.pushedAuthorization && !plain.signedRequestObject && plain.roundTrips == 2)
    }

    @Test func googleAndAssertionClientsGetNoSuchAdvice() throws {
        let matrix = try AdvisoryTests.matrix(
            Self.corp + "\n    client_auth: private_key_jwt\n    private_key_file: ${K}\n"
                + "  google:\n    client_id: a\n    client_secret: ${S}")
        #expect(!matrix.advisories.contains { $0.code == .clientAuthentication })
        #expect(matrix.rows.first?.clientAuthentication == .privateKeyJWT)
    }
}
