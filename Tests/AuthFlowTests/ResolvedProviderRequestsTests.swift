import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlow

/// Client authentication placement for every style, public clients and revocation.
@Suite struct ResolvedProviderRequestsTests {
    struct StylePlugin: ProviderPlugin, RequiredSettingsDeclaring {
        let style: ClientAuthentication
        var about: ProviderDescription {
            ProviderDescription(
                type: "style",
                endpoints: ProviderEndpoints(
                    authorization: "https://s.test/a", token: "https://s.test/t?v=1", userinfo: "https://s.test/u",
                    revocation: "https://s.test/r"))
        }
        func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
            .optional(default: false)
        }
        var tokenEndpoint: any TokenEndpointStrategy { self }
        func method(capabilities: Set<Capability>) -> ClientAuthentication { style }
        func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey] { [] }
    }

    let now = Date(timeIntervalSince1970: 1_750_000_000)

    func provider(_ style: ClientAuthentication, secret: String?) throws -> ResolvedProvider {
        try ProviderRegistry([StylePlugin(style: style)]).resolve(
            ProviderSettings(
                name: "s", type: "style", clientID: "cid", clientSecret: secret.map(Secret.init),
                location: SourceLocation(fileName: "f", line: 1, column: 1, sourceLine: nil)),
            publicURL: "https://app.test")
    }

    @Test func publicClientsSendOnlyTheirID() throws {
        for style in [ClientAuthentication.clientSecretPost, .clientSecretBasic] {
            let request = try provider(style, secret: nil).tokenRequest(code: "c", pkceVerifier: "v", now: now)
            let form = Query.form(request.body)
            #expect(form["client_id"] == "cid")
            #expect(form["client_secret"] == nil)
            #expect(request.headers["Authorization"] == nil)
        }
        let get = try provider(.clientSecretGet, secret: nil).tokenRequest(code: "c", pkceVerifier: nil, now: now)
        #expect(get.method == "GET")
        #expect(
            get.url
                == "https://s.test/t?v=1&client_id=cid&code=c&redirect_uri=https%3A%2F%2Fapp.test%2Fauth%2Fs%2Fcallback"
        )
    }

    @Test func revokesWithTheSameClientAuthentication() throws {
        let basic = try #require(
            try provider(.clientSecretBasic, secret: "sec").revocationRequest(
                token: "tok", tokenTypeHint: "refresh_token", now: now))
        #expect(basic.method == "POST")
        #expect(basic.url == "https://s.test/r")
        #expect(basic.headers["Authorization"] == "Basic Y2lkOnNlYw==")
        #expect(Query.form(basic.body) == ["token": "tok", "token_type_hint": "refresh_token"])

        let get = try #require(
            try provider(.clientSecretGet, secret: "sec").revocationRequest(token: "tok", tokenTypeHint: nil, now: now))
        #expect(get.method == "POST")
        #expect(Query.form(get.body) == ["token": "tok", "client_id": "cid", "client_secret": "sec"])
    }

    @Test func hasNoRevocationWithoutAnEndpoint() throws {
        let provider = try TestProviders.resolve([:])
        let resolved = try ProviderRegistry([TestPlugin(clientSecretKey: TestProviders.clientSecretKey)]).resolve(
            ProviderSettings(
                name: "t", type: "test", clientID: "c", clientSecret: Secret("s"),
                endpoints: ProviderEndpoints(revocation: ""),
                location: SourceLocation(fileName: "f", line: 1, column: 1, sourceLine: nil)),
            publicURL: "https://app.test")
        #expect(try provider.revocationRequest(token: "t", tokenTypeHint: nil, now: now) != nil)
        #expect(try resolved.revocationRequest(token: "t", tokenTypeHint: nil, now: now) == nil)
    }

    @Test func userinfoFillsGapsOfTheIDTokenIdentity() {
        let fromToken = VerifiedIdentity(
            provider: "p", subject: "s", email: nil, emailVerified: false, name: nil, source: .idToken,
            rawClaims: ["sub": "s"])
        let fromUserinfo = VerifiedIdentity(
            provider: "p", subject: "s", email: "a@b.c", emailVerified: true, name: "A", source: .userinfo,
            rawClaims: ["sub": "s", "picture": "x"])
        let merged = OAuthFlow.merge(primary: fromToken, secondary: fromUserinfo)
        #expect(merged.email == "a@b.c")
        #expect(merged.emailVerified)
        #expect(merged.name == "A")
        #expect(merged.source == .idToken)
        #expect(merged.rawClaims["picture"] == "x")
    }

    @Test func theIDTokensRolesAndTenantWinAndTheUserinfosFillGaps() {
        let fromToken = VerifiedIdentity(
            provider: "p", subject: "s", email: nil, emailVerified: false, name: nil, source: .idToken,
            rawClaims: [:], roles: ["Admin"], tenant: "t-token")
        let fromUserinfo = VerifiedIdentity(
            provider: "p", subject: "s", email: nil, emailVerified: false, name: nil, source: .userinfo,
            rawClaims: [:], groups: ["g"], roles: ["Reader"], tenant: "t-userinfo")
        let merged = OAuthFlow.merge(primary: fromToken, secondary: fromUserinfo)
        #expect(merged.roles == ["Admin"] && merged.tenant == "t-token" && merged.groups == ["g"])
        let bare = VerifiedIdentity(
            provider: "p", subject: "s", email: nil, emailVerified: false, name: nil, source: .idToken, rawClaims: [:])
        let filled = OAuthFlow.merge(primary: bare, secondary: fromUserinfo)
        #expect(filled.roles == ["Reader"] && filled.tenant == "t-userinfo")
    }
}
