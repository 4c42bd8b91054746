import AuthFlow
import AuthFlowJOSE
import AuthFlowProviderTestSupport
import Foundation
import Testing

/// LinkedIn: no PKCE, and an id_token without a nonce accepted.
@Suite struct LinkedInPluginTests {
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
}
