import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import AuthFlowProviders
import Foundation
import Testing

@Suite struct GitHubPluginTests {
    func signIn(user: JSONValue, emails: JSONValue) throws -> OAuthFlow.IdentityAction {
        let provider = try Fixtures.resolve(Fixtures.settings("github"))
        var (flow, _, _) = Fixtures.exchange(provider)
        let first = flow.tokensReceived(Fixtures.tokenResponse(idToken: nil))
        guard case .fetchUserinfo(let userRequest) = first else { return first }
        #expect(userRequest.url == "https://api.github.com/user")
        #expect(userRequest.headers["User-Agent"] == "AuthFlow")
        let second = flow.userinfoResponseReceived(
            HTTPClientResponse(status: 200, headers: [:], body: Array(user.serialized().utf8)), now: Fixtures.now)
        guard case .fetchUserinfo(let emailsRequest) = second else { return second }
        #expect(emailsRequest.url == "https://api.github.com/user/emails")
        #expect(emailsRequest.headers["Authorization"] == "Bearer access-token-value")
        return flow.userinfoResponseReceived(
            HTTPClientResponse(status: 200, headers: [:], body: Array(emails.serialized().utf8)), now: Fixtures.now)
    }

    static func entry(_ email: String, primary: Bool, verified: Bool) -> JSONValue {
        .object(["email": .string(email), "primary": .bool(primary), "verified": .bool(verified)])
    }

    @Test func takesTheNumericIdAndThePrimaryVerifiedAddress() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("github"))
        #expect(provider.signInProtocol == .oauth2)
        #expect(provider.capabilities == [.pkce])
        #expect(provider.scopes == ["read:user", "user:email"])
        let action = try signIn(
            user: ["id": .integer(583231), "login": "octocat", "email": .null],
            emails: .array([
                Self.entry("old@example.com", primary: false, verified: true),
                Self.entry("octo@example.com", primary: true, verified: true),
            ]))
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.identity.subject == "583231")
        #expect(result.identity.name == "octocat")
        #expect(result.identity.email == "octo@example.com")
        #expect(result.identity.emailLinkable)
    }

    @Test func anUnverifiedPrimaryOrAVerifiedSecondaryIsNoEmail() throws {
        let action = try signIn(
            user: ["id": .integer(1), "login": "a", "email": "public@example.com"],
            emails: .array([
                Self.entry("primary@example.com", primary: true, verified: false),
                Self.entry("other@example.com", primary: false, verified: true),
            ]))
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.identity.email == nil)
        #expect(!result.identity.emailLinkable)
    }

    @Test func refusesAnIdThatIsNotANumberAndEmailsThatAreNotAList() throws {
        #expect(try signIn(user: ["id": "583231"], emails: .array([])).failure?.claim == "id")
        #expect(try signIn(user: ["id": .integer(1)], emails: ["email": "x"]).failure?.claim == "emails")
    }

    @Test func revokesTheGrantWithBasicAuthAndAJSONBody() throws {
        let provider = try Fixtures.resolve(Fixtures.settings("github"))
        let request = try #require(
            try provider.revocationRequest(token: "gho_token", tokenTypeHint: nil, now: Fixtures.now))
        #expect(request.method == "DELETE")
        #expect(request.url == "https://api.github.com/applications/client-id/grant")
        #expect(request.headers["Authorization"] == "Basic " + Data("client-id:app-secret".utf8).base64EncodedString())
        #expect(try JSONValue.parse(request.body ?? [])["access_token"] == "gho_token")
    }
}
