import AuthFlow
import AuthFlowJOSE
import Foundation
import Testing

/// Every refusal at the callback: state, provider, method, browser binding, provider errors, code.
@Suite struct OAuthFlowCallbackTests {
    let harness: FlowHarness

    init() throws {
        harness = FlowHarness(try TestProviders.resolve(["pkce": true]))
    }

    @Test func refusesACallbackWithoutAFlowCookie() {
        // No cookie for this state reached the server: another browser, or a cookie-less request.
        var flow = OAuthFlow(provider: harness.provider)
        let action = flow.callbackReceived(
            method: .get, parameters: CallbackParameters([("code", "c"), ("state", harness.secrets.state)]),
            flowRecord: nil, now: harness.now)
        #expect(action.failure?.code == .browserBindingMismatch)
        #expect(action.failure?.statusHint == 403)
        #expect(flow.trace.last?.outcome == .failed(.browserBindingMismatch))
    }

    @Test func asksToSpendTheStateOnlyAfterTheCookieMatched() throws {
        let redirect = try harness.begin()
        var flow = OAuthFlow(provider: harness.provider)
        let action = flow.callbackReceived(
            method: .get, parameters: CallbackParameters([("code", "c"), ("state", harness.secrets.state)]),
            flowRecord: redirect.record, now: harness.now)
        guard case .markStateSpent(let state, let until) = action else {
            Issue.record("expected markStateSpent, got \(action)")
            return
        }
        #expect(state == harness.secrets.state)
        #expect(until >= redirect.record.createdAt.addingTimeInterval(redirect.ttl))
        // Every refusal before that point leaves the state unspent: the action is a failure, not a spend.
        for refused in [
            harness.callback(record: nil).1,
            harness.callback(record: redirect.record, method: .post).1,
            harness.callback(record: redirect.record, at: harness.now.addingTimeInterval(601)).1,
        ] {
            #expect(refused.failure != nil)
        }
    }

    @Test func refusesAStateThatWasAlreadySpent() throws {
        let redirect = try harness.begin()
        let (flow, action) = harness.callback(record: redirect.record, spentBefore: true)
        #expect(action.failure?.code == .invalidState)
        #expect(action.failure?.statusHint == 400)
        #expect(flow.trace.last?.outcome == .failed(.invalidState))
    }

    @Test func refusesReplayedStateAgainstTheStore() async throws {
        let store = InMemoryFlowStore(clock: ManualClock(harness.now))
        let redirect = try harness.begin()
        let until = redirect.record.createdAt.addingTimeInterval(redirect.ttl)
        let first = try await store.markSpent(state: harness.secrets.state, until: until)
        #expect(harness.callback(record: redirect.record, spentBefore: !first).1.failure == nil)
        let second = try await store.markSpent(state: harness.secrets.state, until: until)
        #expect(harness.callback(record: redirect.record, spentBefore: !second).1.failure?.code == .invalidState)
    }

    @Test func refusesMissingOrRepeatedStateParameter() {
        let missing = harness.callback(record: nil, parameters: [("code", "c")])
        #expect(missing.1.failure?.code == .invalidState)
        let repeated = harness.callback(
            record: nil, parameters: [("code", "c"), ("state", harness.secrets.state), ("state", "other")])
        #expect(repeated.1.failure?.code == .invalidState)
        let empty = harness.callback(record: nil, parameters: [("code", "c"), ("state", "")])
        #expect(empty.1.failure?.code == .invalidState)
    }

    @Test func refusesRecordWhoseStateDiffers() throws {
        let redirect = try harness.begin()
        let (_, action) = harness.callback(
            record: redirect.record, parameters: [("code", "c"), ("state", "another-state-value")])
        #expect(action.failure?.code == .browserBindingMismatch)
    }

    @Test func refusesExpiredState() throws {
        let redirect = try harness.begin()
        let late = harness.now.addingTimeInterval(601)
        let (_, action) = harness.callback(record: redirect.record, at: late)
        #expect(action.failure?.code == .stateExpired)
        let inTime = harness.callback(record: redirect.record, at: harness.now.addingTimeInterval(599))
        #expect(inTime.1.failure == nil)
    }

    @Test func refusesStateIssuedForAnotherProvider() throws {
        let other = FlowHarness(try TestProviders.resolve(["pkce": true], name: "other"))
        let foreign = try other.begin().record
        let (_, action) = harness.callback(record: foreign)
        #expect(action.failure?.code == .stateProviderMismatch)
        #expect(action.failure?.statusHint == 403)
    }

    @Test func refusesWrongCallbackMethod() throws {
        let redirect = try harness.begin()
        let (_, action) = harness.callback(record: redirect.record, method: .post)
        #expect(action.failure?.code == .wrongCallbackMethod)

        let formPost = FlowHarness(try TestProviders.resolve(["form_post": true]))
        let record = try formPost.begin().record
        #expect(formPost.callback(record: record, method: .get).1.failure?.code == .wrongCallbackMethod)
        #expect(formPost.callback(record: record, method: .post).1.failure == nil)
    }

    @Test func refusesTheCookieOfAnotherSignIn() throws {
        let redirect = try harness.begin()
        let otherSecrets = FlowSecrets(
            state: "state-of-another-sign-in-0123456789abcdef", nonce: "n2", pkceVerifier: "v2")
        var otherFlow = OAuthFlow(provider: harness.provider)
        let other = try otherFlow.start(
            returnTo: "/", intent: .login, browserBinding: "b2", secrets: otherSecrets, now: harness.now)
        let mismatch = harness.callback(record: other.record)
        #expect(mismatch.1.failure?.code == .browserBindingMismatch)
        #expect(mismatch.1.failure?.statusHint == 403)
        #expect(harness.callback(record: redirect.record).1.failure == nil)
    }

    /// RFC 9207: an `iss` parameter in the authorization response must name this provider's issuer.
    @Test func checksTheIssParameterWhenTheProviderSendsOne() throws {
        let redirect = try harness.begin()
        let state = harness.secrets.state
        let matching = harness.callback(
            record: redirect.record,
            parameters: [("code", "c"), ("state", state), ("iss", TestIdentityProvider.issuer)])
        #expect(matching.1.failure == nil)
        #expect(matching.0.trace.last?.checks.contains("iss_parameter") == true)
        let absent = harness.callback(record: redirect.record, parameters: [("code", "c"), ("state", state)])
        #expect(absent.1.failure == nil)
        #expect(absent.0.trace.last?.checks.contains("iss_parameter") == false)

        for wrong in ["https://attacker.example", TestIdentityProvider.issuer + "/", "", "HTTPS://IDP.TEST"] {
            let (flow, action) = harness.callback(
                record: redirect.record, parameters: [("code", "c"), ("state", state), ("iss", wrong)])
            let error = try #require(action.failure, "iss '\(wrong)' must be refused")
            #expect(error.code == .issuerMismatch)
            #expect(error.statusHint == 403)
            #expect(error.message.contains("RFC 9207"))
            #expect(flow.trace.last?.outcome == .failed(.issuerMismatch))
        }
        let repeated = harness.callback(
            record: redirect.record,
            parameters: [
                ("code", "c"), ("state", state), ("iss", TestIdentityProvider.issuer),
                ("iss", "https://attacker.example"),
            ])
        #expect(repeated.1.failure?.code == .issuerMismatch)
        // The issuer is checked before an error response is believed.
        let mixedUpError = harness.callback(
            record: redirect.record,
            parameters: [("error", "access_denied"), ("state", state), ("iss", "https://attacker.example")])
        #expect(mixedUpError.1.failure?.code == .issuerMismatch)
    }

    @Test func requiresTheIssParameterWhenTheProviderPromisesIt() throws {
        var plugin = TestPlugin(clientSecretKey: TestProviders.clientSecretKey)
        plugin.promisesIssuerParameter = true
        let provider = try ProviderRegistry([plugin]).resolve(
            TestProviders.settings(), publicURL: TestProviders.publicURL)
        let promising = FlowHarness(provider)
        let redirect = try promising.begin()
        let state = promising.secrets.state
        let absent = promising.callback(record: redirect.record, parameters: [("code", "c"), ("state", state)])
        #expect(absent.1.failure?.code == .issuerMismatch)
        #expect(absent.1.failure?.message.contains("found none") == true)
        let present = promising.callback(
            record: redirect.record,
            parameters: [("code", "c"), ("state", state), ("iss", TestIdentityProvider.issuer)])
        #expect(present.1.failure == nil)
        let wrong = promising.callback(
            record: redirect.record, parameters: [("code", "c"), ("state", state), ("iss", "https://attacker.example")])
        #expect(wrong.1.failure?.code == .issuerMismatch)
    }

    /// RFC 9207 §2.4 through a `form_post` callback (POST) as through a GET one: a promised `iss` that is
    /// missing, repeated or wrong is refused, an error response included, before anything else is believed.
    @Test(arguments: [false, true])
    func checksTheIssParameterOnBothCallbackMethods(formPost: Bool) throws {
        var plugin = TestPlugin(clientSecretKey: TestProviders.clientSecretKey)
        plugin.promisesIssuerParameter = true
        let provider = try ProviderRegistry([plugin]).resolve(
            TestProviders.settings(capabilities: ["form_post": formPost]), publicURL: TestProviders.publicURL)
        let promising = FlowHarness(provider)
        #expect(provider.callbackMethod == (formPost ? .post : .get))
        let redirect = try promising.begin()
        let state = promising.secrets.state
        let refused: [[(String, String)]] = [
            [("code", "c"), ("state", state)],
            [("code", "c"), ("state", state), ("iss", "https://attacker.example")],
            [
                ("code", "c"), ("state", state), ("iss", TestIdentityProvider.issuer),
                ("iss", TestIdentityProvider.issuer),
            ],
            [("error", "access_denied"), ("state", state)],
            [("error", "access_denied"), ("state", state), ("iss", "https://attacker.example")],
        ]
        for parameters in refused {
            let (flow, action) = promising.callback(record: redirect.record, parameters: parameters)
            let error = try #require(action.failure, "\(parameters.map(\.0)) must be refused")
            #expect(error.code == .issuerMismatch)
            #expect(error.providerError == nil)
            #expect(flow.trace.last?.checks.contains("iss_parameter") == false)
        }
        let honestError = promising.callback(
            record: redirect.record,
            parameters: [("error", "access_denied"), ("state", state), ("iss", TestIdentityProvider.issuer)])
        #expect(honestError.1.failure?.code == .providerError)
        #expect(honestError.0.trace.last?.checks.contains("iss_parameter") == true)
        let accepted = promising.callback(
            record: redirect.record,
            parameters: [("code", "c"), ("state", state), ("iss", TestIdentityProvider.issuer)])
        #expect(accepted.1.failure == nil)
    }

    @Test func ignoresAnIssParameterWhenTheProviderHasNoIssuer() throws {
        var plugin = TestPlugin(clientSecretKey: TestProviders.clientSecretKey)
        plugin.issuer = nil
        let provider = try ProviderRegistry([plugin]).resolve(
            TestProviders.settings(), publicURL: TestProviders.publicURL)
        #expect(provider.acceptedIssuers.isEmpty)
        let issuerless = FlowHarness(provider)
        let redirect = try issuerless.begin()
        let (_, action) = issuerless.callback(
            record: redirect.record,
            parameters: [("code", "c"), ("state", issuerless.secrets.state), ("iss", "https://anything.example")])
        #expect(action.failure == nil)
    }

    @Test func turnsProviderErrorIntoTypedError() throws {
        let redirect = try harness.begin()
        let (flow, action) = harness.callback(
            record: redirect.record,
            parameters: [
                ("error", "access_denied"), ("error_description", "The user denied"), ("state", harness.secrets.state),
            ])
        let error = try #require(action.failure)
        #expect(error.code == .providerError)
        #expect(error.providerError == "access_denied")
        #expect(error.statusHint == 401)
        #expect(error.provider == "test")
        #expect(flow.trace.last?.checks.contains("browser_binding") == true)
        #expect(error.trace.map(\.step) == [.callback])
        #expect(error.trace.last?.outcome == .failed(.providerError))
    }

    @Test func providerErrorEvenWithACodeIsNeverASuccess() throws {
        let redirect = try harness.begin()
        let (_, action) = harness.callback(
            record: redirect.record,
            parameters: [("code", "c"), ("error", "server_error"), ("state", harness.secrets.state)])
        #expect(action.failure?.code == .providerError)
    }

    @Test func dropsProviderErrorCodesOutsideTheRFCCharacterSet() throws {
        let redirect = try harness.begin()
        let (_, action) = harness.callback(
            record: redirect.record, parameters: [("error", "bad\"<script>"), ("state", harness.secrets.state)])
        #expect(action.failure?.code == .providerError)
        #expect(action.failure?.providerError == nil)
        #expect(action.failure?.message.contains("script") == false)
    }

    @Test func refusesMissingOrRepeatedCode() throws {
        let redirect = try harness.begin()
        let missing = harness.callback(record: redirect.record, parameters: [("state", harness.secrets.state)])
        #expect(missing.1.failure?.code == .missingCode)
        let repeated = harness.callback(
            record: redirect.record, parameters: [("code", "a"), ("code", "b"), ("state", harness.secrets.state)])
        #expect(repeated.1.failure?.code == .missingCode)
    }

    @Test func refusesStartWithoutBrowserBinding() throws {
        var flow = OAuthFlow(provider: harness.provider)
        let error = #expect(throws: SignInError.self) {
            try flow.start(
                returnTo: nil, intent: .login, browserBinding: "", secrets: harness.secrets, now: harness.now)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.trace.last?.step == .authorizationRedirect)
    }

    @Test func carriesIntentThroughTheFlowRecord() throws {
        for intent in SignInIntent.allCases {
            let redirect = try harness.begin(intent: intent)
            #expect(redirect.record.intent == intent)
        }
    }

    /// An event the flow's state cannot receive is a bug in the driver, not something input can cause: the
    /// flow stops the process (a precondition trap, SIGILL; a thrown error would exit with a status instead).
    @Test func stopsOnAnEventItsStateCannotReceive() async throws {
        await #expect(processExitsWith: .signal(SIGILL)) {
            var flow = OAuthFlow(provider: try TestProviders.resolve([:]))
            _ = flow.tokenResponseReceived(TestIdentityProvider.tokenResponse(idToken: nil), now: Date())
        }
        await #expect(processExitsWith: .signal(SIGILL)) {
            // The callback runs on a flow of its own, never on the one that redirected.
            let harness = FlowHarness(try TestProviders.resolve([:]))
            var flow = OAuthFlow(provider: harness.provider)
            let redirect = try flow.start(
                returnTo: nil, intent: .login, browserBinding: harness.binding, secrets: harness.secrets,
                now: harness.now)
            _ = flow.callbackReceived(
                method: .get, parameters: CallbackParameters([("state", harness.secrets.state)]),
                flowRecord: redirect.record, now: harness.now)
        }
        await #expect(processExitsWith: .signal(SIGILL)) {
            var flow = try FlowHarness(try TestProviders.resolve(["oidc": true])).untilKeys(idToken: "a.b.c").0
            _ = flow.requestFailed(SignInError(.providerUnreachable, "down"), now: Date())
        }
    }

    @Test func errorMessagesNeverContainStateOrCode() throws {
        let redirect = try harness.begin()
        let cases: [OAuthFlow.StateSpentAction] = [
            harness.callback(record: nil).1,
            harness.callback(record: redirect.record, spentBefore: true).1,
            harness.callback(record: redirect.record, method: .post).1,
            harness.callback(record: redirect.record, at: harness.now.addingTimeInterval(700)).1,
        ]
        for action in cases {
            let error = try #require(action.failure)
            #expect(!error.description.contains(harness.secrets.state))
            #expect(!error.description.contains("auth-code-value"))
        }
    }
}
