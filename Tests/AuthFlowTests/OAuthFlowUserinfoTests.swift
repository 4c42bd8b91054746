import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// Userinfo answers: failures are typed; with an id_token too, the subjects must agree.
@Suite struct OAuthFlowUserinfoTests {
    func untilUserinfo(_ harness: FlowHarness) throws -> OAuthFlow {
        var (flow, _, _) = try harness.exchange()
        let action = flow.tokenResponseReceived(TestIdentityProvider.tokenResponse(idToken: nil), now: harness.now)
        guard case .fetchUserinfo = action else {
            Issue.record("expected a userinfo call, got \(action)")
            throw HarnessError.unexpected
        }
        return flow
    }

    @Test func refusesNon2xxUserinfo() throws {
        let harness = FlowHarness(try TestProviders.resolve([:]))
        var flow = try untilUserinfo(harness)
        let action = flow.userinfoResponseReceived(
            TestIdentityProvider.json(["error": "invalid_token"], status: 401), now: harness.now)
        #expect(action.failure?.code == .userinfoError)
        #expect(action.failure?.upstreamStatus == 401)
        #expect(action.failure?.providerError == "invalid_token")
    }

    @Test func refusesUserinfoThatIsNotJSON() throws {
        let harness = FlowHarness(try TestProviders.resolve([:]))
        var flow = try untilUserinfo(harness)
        let action = flow.userinfoResponseReceived(
            HTTPClientResponse(status: 200, headers: [:], body: Array("<html>".utf8)), now: harness.now)
        #expect(action.failure?.code == .userinfoError)
    }

    @Test func refusesUserinfoWithoutSubject() throws {
        let harness = FlowHarness(try TestProviders.resolve([:]))
        for body in [#"{"email":"a@b.c"}"#, #"{"sub":""}"#, #"{"sub":12}"#, "[]"] {
            var flow = try untilUserinfo(harness)
            let action = flow.userinfoResponseReceived(
                HTTPClientResponse(status: 200, headers: [:], body: Array(body.utf8)), now: harness.now)
            #expect(action.failure?.code == .userinfoError)
        }
    }

    @Test func userinfoWithoutEmailVerifiedIsNotVerified() throws {
        let harness = FlowHarness(try TestProviders.resolve([:]))
        var flow = try untilUserinfo(harness)
        let action = flow.userinfoResponseReceived(
            TestIdentityProvider.json(["sub": "u", "email": "u@example.com"]), now: harness.now)
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.identity.email == "u@example.com")
        #expect(!result.identity.emailVerified)
    }

    func oidcWithUserinfo() throws -> (FlowHarness, OAuthFlow) {
        let harness = FlowHarness(try TestProviders.resolve(["oidc": true], alsoUserinfo: true))
        var (flow, verification) = try harness.untilKeys(
            idToken: try harness.idp.idToken(nonce: harness.secrets.nonce, now: harness.now))
        let action = flow.verify(verification, keys: harness.idp.keySet, source: .cached, now: harness.now)
        guard case .fetchUserinfo = action else {
            Issue.record("expected a userinfo call after the id_token, got \(action)")
            throw HarnessError.unexpected
        }
        return (harness, flow)
    }

    @Test func refusesUserinfoSubjectMismatch() throws {
        var (harness, flow) = try oidcWithUserinfo()
        let action = flow.userinfoResponseReceived(
            TestIdentityProvider.userinfo(subject: "someone-else"), now: harness.now)
        #expect(action.failure?.code == .userinfoSubjectMismatch)
        #expect(action.failure?.statusHint == 401)
    }

    @Test func acceptsMatchingSubjectsAndKeepsTheIDTokenAsSource() throws {
        var (harness, flow) = try oidcWithUserinfo()
        let resolved = try TestProviders.resolve(["oidc": true], alsoUserinfo: true)
        #expect(resolved.roundTrips == 2)
        let action = flow.userinfoResponseReceived(TestIdentityProvider.userinfo(), now: harness.now)
        guard case .complete(let result) = action else {
            Issue.record("expected completion, got \(action)")
            return
        }
        #expect(result.identity.source == .idToken)
        #expect(result.trace.first { $0.step == .userinfo }?.checks.contains("subject_matches_id_token") == true)
    }
}
