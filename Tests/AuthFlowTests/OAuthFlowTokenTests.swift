import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// Token endpoint answers: errors are typed and quote the provider's `error`, never the body's tokens.
@Suite struct OAuthFlowTokenTests {
    let harness: FlowHarness

    init() throws {
        harness = FlowHarness(try TestProviders.resolve([:]))
    }

    func respond(_ response: HTTPClientResponse) throws -> OAuthFlow.TokenResponseAction {
        var (flow, _, _) = try harness.exchange()
        return flow.tokenResponseReceived(response, now: harness.now)
    }

    @Test func quotesTheProviderErrorOfAFailedExchange() throws {
        let action = try respond(
            TestIdentityProvider.json(
                ["error": "invalid_grant", "error_description": "code expired", "access_token": "leaked-token"],
                status: 400))
        let error = try #require(action.failure)
        #expect(error.code == .tokenEndpointError)
        #expect(error.providerError == "invalid_grant")
        #expect(error.upstreamStatus == 400)
        #expect(error.message.contains("invalid_grant"))
        #expect(!error.description.contains("leaked-token"))
    }

    @Test func refusesErrorMemberInA200Body() throws {
        let action = try respond(TestIdentityProvider.json(["error": "invalid_client"]))
        #expect(action.failure?.code == .tokenEndpointError)
        #expect(action.failure?.providerError == "invalid_client")
    }

    @Test func readsFacebookStyleErrorObjects() throws {
        let action = try respond(
            TestIdentityProvider.json(
                ["error": .object(["type": "OAuthException", "code": 100, "message": "Invalid code"])], status: 400))
        #expect(action.failure?.providerError == "OAuthException")
    }

    @Test func refusesNon2xxWithoutJSON() throws {
        let action = try respond(HTTPClientResponse(status: 502, headers: [:], body: Array("<html>".utf8)))
        #expect(action.failure?.code == .tokenEndpointError)
        #expect(action.failure?.providerError == nil)
    }

    @Test func refusesBodiesThatAreNotTokenResponses() throws {
        let bodies: [[UInt8]] = [
            Array("not json".utf8), Array("[1,2]".utf8), Array(#"{"token_type":"Bearer"}"#.utf8),
            Array(#"{"access_token":""}"#.utf8), Array(#"{"access_token":42}"#.utf8),
            Array(#"{"access_token":"abc-token","token_type":"mac"}"#.utf8),
        ]
        for body in bodies {
            let action = try respond(HTTPClientResponse(status: 200, headers: [:], body: body))
            let error = try #require(action.failure)
            #expect(error.code == .invalidTokenResponse)
            #expect(!error.description.contains("abc-token"))
        }
    }

    @Test func requiresAnIDTokenWithOIDC() throws {
        let oidc = FlowHarness(try TestProviders.resolve(["oidc": true]))
        var (flow, _, _) = try oidc.exchange()
        let action = flow.tokenResponseReceived(TestIdentityProvider.tokenResponse(idToken: nil), now: oidc.now)
        #expect(action.failure?.code == .invalidTokenResponse)
    }

    @Test func acceptsExpiresInAsNumberOrString() throws {
        var (flow, _, _) = try harness.exchange()
        _ = flow.tokenResponseReceived(
            TestIdentityProvider.json(["access_token": "a", "token_type": "bearer", "expires_in": "5183976"]),
            now: harness.now)
        let action = flow.userinfoResponseReceived(TestIdentityProvider.userinfo(), now: harness.now)
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.tokens.expiresIn == 5_183_976)
        #expect(result.tokens.refreshToken == nil)
    }

    @Test func transportFailureIsTyped() throws {
        var (flow, _, _) = try harness.exchange()
        let error = flow.requestFailed(SignInError(.providerUnreachable, "timeout"), now: harness.now)
        #expect(error.code == .providerUnreachable)
        #expect(error.trace.last?.step == .tokenExchange)
        #expect(flow.trace.last?.step == .tokenExchange)
    }

    @Test func recordsTheTokenExchangeDurationFromTheInjectedClock() throws {
        var (flow, _, _) = try harness.exchange()
        _ = flow.tokenResponseReceived(TestIdentityProvider.tokenResponse(idToken: nil), now: harness.now + 2.5)
        let event = try #require(flow.trace.last)
        #expect(event.step == .tokenExchange)
        #expect(event.duration == 2.5)
        #expect(event.providerRoundTrip)
        #expect(event.outcome == .succeeded)
    }
}
