import AuthFlow
import AuthFlowJOSE
import AuthFlowProviders
import Foundation
import Testing

/// GitLab, LinkedIn, Slack and Discord: endpoints, capabilities, and the identity each maps.
@Suite struct PresetPluginTests {
    func signIn(_ provider: ResolvedProvider, claims extra: [String: JSONValue], nonce: Bool = true) throws
        -> OAuthFlow.IdentityAction
    {
        var (flow, _, _) = Fixtures.exchange(provider)
        let t = Int64(Fixtures.now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(provider.issuer ?? ""), "sub": "user-1", "aud": "client-id", "exp": .integer(t + 300),
            "iat": .integer(t),
        ]
        if nonce { claims["nonce"] = .string(Fixtures.secrets.nonce) }
        claims.merge(extra) { _, new in new }
        return flow.tokensReceived(Fixtures.tokenResponse(idToken: try Fixtures.idToken(claims)))
    }

    @Test func gitLabFollowsItsBaseURL() throws {
        let hosted = try Fixtures.resolve(Fixtures.settings("gitlab"))
        #expect(hosted.issuer == "https://gitlab.com")
        #expect(hosted.endpoints.jwks == "https://gitlab.com/oauth/discovery/keys")
        #expect(hosted.capabilities == [.oidc, .pkce])
        var settings = Fixtures.settings("gitlab")
        settings.options.baseURL = "https://git.corp.example/"
        let own = try Fixtures.resolve(settings)
        #expect(own.issuer == "https://git.corp.example")
        #expect(own.endpoints.token == "https://git.corp.example/oauth/token")
        guard
            case .complete(let result) = try signIn(
                own, claims: ["email": "a@corp.example", "email_verified": true, "groups_direct": .array(["ops"])])
        else {
            Issue.record("expected completion")
            return
        }
        #expect(result.identity.subject == "user-1")
        #expect(result.identity.emailLinkable)
        #expect(result.identity.groups == ["ops"])
        // A token of gitlab.com is not one of the instance.
        #expect(try signIn(own, claims: ["iss": "https://gitlab.com"]).failure?.joseCode == .issuerMismatch)
    }

    @Test func linkedInSendsNoPKCEAndAcceptsATokenWithoutNonce() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("linkedin"))
        #expect(provider.capabilities == [.oidc])
        #expect(provider.clientAuthentication == .clientSecretPost)
        #expect(
            Fixtures.issues(Fixtures.settings("linkedin", capabilities: ["pkce": true])).first?.code.rawValue
                == "unsupported_capability")
        guard
            case .complete(let result) = try signIn(
                provider, claims: ["email": "a@b.example", "email_verified": "true"], nonce: false)
        else {
            Issue.record("expected a token without nonce to be accepted")
            return
        }
        #expect(result.identity.emailVerified)
        // A nonce that is present must still be the one sent.
        let wrong = try signIn(provider, claims: ["nonce": "another"], nonce: false).failure
        #expect(wrong?.joseCode == .nonceMismatch)
    }

    @Test func otherProvidersStillRequireTheNonce() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("gitlab"))
        #expect(try signIn(provider, claims: [:], nonce: false).failure?.joseCode == .missingClaim)
    }

    @Test func slackKeysTheUserByWorkspace() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("slack"))
        #expect(provider.issuer == "https://slack.com")
        #expect(provider.endpoints.authorization == "https://slack.com/openid/connect/authorize")
        guard
            case .complete(let result) = try signIn(
                provider,
                claims: ["https://slack.com/team_id": "T0001", "email": "a@b.example", "email_verified": true])
        else {
            Issue.record("expected completion")
            return
        }
        #expect(result.identity.subject == "T0001:user-1")
        let missing = try signIn(provider, claims: [:]).failure
        #expect(missing?.code == .idTokenInvalid)
        #expect(missing?.claim == "https://slack.com/team_id")
    }

    /// GitLab and Slack map the id_token through the core's `IdentityClaims`: the standard members, their own
    /// subject and groups, and `id_token_invalid` naming `sub` when it is missing or empty.
    @Test func gitLabAndSlackMapTheStandardClaimsThroughTheCoreHelper() throws {
        let gitlab = try Fixtures.resolve(Fixtures.settings("gitlab"))
        let slack = try Fixtures.resolve(Fixtures.settings("slack"))
        let claims = JWTClaims(json: [
            "sub": "u1", "email": "a@b.example", "email_verified": "true", "given_name": "Ada",
            "family_name": "Lovelace", "groups_direct": ["ops", "dev"], "https://slack.com/team_id": "T1",
        ])
        let fromGitLab = try GitLabPlugin().identity.identity(fromIDToken: claims, provider: gitlab)
        #expect(fromGitLab.subject == "u1")
        #expect(fromGitLab.groups == ["ops", "dev"])
        let fromSlack = try SlackPlugin().identity.identity(fromIDToken: claims, provider: slack)
        #expect(fromSlack.subject == "T1:u1")
        #expect(fromSlack.groups.isEmpty)
        for identity in [fromGitLab, fromSlack] {
            #expect(identity.email == "a@b.example")
            #expect(identity.emailVerified)
            #expect(identity.name == "Ada Lovelace")
            #expect(identity.source == .idToken)
        }
        for subject: JSONValue? in [nil, ""] {
            var members: [String: JSONValue] = ["https://slack.com/team_id": "T1"]
            members["sub"] = subject
            let refused = JWTClaims(json: members)
            for (plugin, provider) in [(GitLabPlugin() as any ProviderPlugin, gitlab), (SlackPlugin(), slack)] {
                #expect(throws: SignInError.self) {
                    try plugin.identity.identity(fromIDToken: refused, provider: provider)
                }
                do {
                    _ = try plugin.identity.identity(fromIDToken: refused, provider: provider)
                } catch {
                    #expect(error.code == .idTokenInvalid)
                    #expect(error.claim == "sub")
                }
            }
        }
    }

    @Test func discordTrustsTheEmailOnlyWhenVerified() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("discord"))
        #expect(provider.signInProtocol == .oauth2)
        #expect(provider.capabilities == [.pkce])
        #expect(provider.endpoints.userinfo == "https://discord.com/api/users/@me")
        func identity(_ body: [String: JSONValue]) -> OAuthFlow.IdentityAction {
            var (flow, _, _) = Fixtures.exchange(provider)
            _ = flow.tokenResponseReceived(Fixtures.tokenResponse(idToken: nil), now: Fixtures.now)
            return flow.userinfoResponseReceived(Fixtures.json(body), now: Fixtures.now)
        }
        guard
            case .complete(let verified) = identity([
                "id": "80351110224678912", "username": "nelly", "email": "n@b.example", "verified": true,
            ])
        else {
            Issue.record("expected completion")
            return
        }
        #expect(verified.identity.subject == "80351110224678912")
        #expect(verified.identity.name == "nelly")
        #expect(verified.identity.emailLinkable)
        guard case .complete(let unverified) = identity(["id": "1", "email": "n@b.example", "verified": false]) else {
            Issue.record("expected completion")
            return
        }
        #expect(!unverified.identity.emailVerified)
        #expect(!unverified.identity.emailLinkable)
        #expect(identity(["id": .integer(1)]).failure?.claim == "id")
        #expect(identity(["id": "1", "verified": "yes"]).failure?.claim == "verified")
    }

    @Test func baseURLIsRefusedWhereThePluginDoesNotReadIt() {
        var settings = Fixtures.settings("slack")
        settings = ProviderSettings(
            name: "slack", type: "slack", clientID: "client-id", clientSecret: Secret("s"),
            location: Fixtures.location(), keyLocations: ["base_url": Fixtures.location(9, 5)])
        settings.options.baseURL = "https://slack.example"
        let issues = Fixtures.issues(settings)
        #expect(issues.first?.location?.line == 9)
    }
}
