import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// Drives ``OAuthFlow`` step by step without I/O.
struct FlowHarness {
    let provider: ResolvedProvider
    let idp = TestIdentityProvider.shared
    let binding = "browser-binding-value"
    let secrets = FlowSecrets(
        state: "state-0123456789abcdef0123456789abcdef012",
        nonce: "nonce-0123456789abcdef0123456789abcdef012",
        pkceVerifier: "verifier-0123456789abcdef0123456789abcdef01")
    var now = TestIdentityProvider.start

    init(_ provider: ResolvedProvider) {
        self.provider = provider
    }

    /// Starts a flow and returns the redirect.
    func begin(returnTo: String? = "/home", intent: SignInIntent = .login) throws -> OAuthFlow.AuthorizationRedirect {
        var flow = OAuthFlow(provider: provider)
        return try flow.start(returnTo: returnTo, intent: intent, browserBinding: binding, secrets: secrets, now: now)
    }

    /// Runs the callback up to the token exchange, with the record the browser's flow cookie carried;
    /// `spentBefore` is what the spent-state set knows. A refusal before the spend comes back as `.fail`.
    func callback(
        record: FlowRecord?, method: CallbackMethod? = nil, parameters: [(String, String)]? = nil,
        spentBefore: Bool = false, at time: Date? = nil
    ) -> (OAuthFlow, OAuthFlow.StateSpentAction) {
        var flow = OAuthFlow(provider: provider)
        let params = parameters ?? [("code", "auth-code-value"), ("state", secrets.state)]
        let first = flow.callbackReceived(
            method: method ?? provider.callbackMethod, parameters: CallbackParameters(params), flowRecord: record,
            now: time ?? now)
        guard case .markStateSpent = first else { return (flow, .fail(first.failure!)) }
        let second = flow.stateSpent(!spentBefore, now: time ?? now)
        return (flow, second)
    }

    /// Begins, then runs the callback with the stored record, expecting the token exchange.
    func exchange() throws -> (OAuthFlow, OAuthFlow.TokenExchange, FlowRecord) {
        let redirect = try begin()
        let (flow, action) = callback(record: redirect.record)
        guard case .exchangeCode(let exchange) = action else {
            Issue.record("expected a code exchange, got \(action)")
            throw HarnessError.unexpected
        }
        return (flow, exchange, redirect.record)
    }

    /// Runs an oidc flow until the id_token is to be verified, with `idToken` in the token response.
    func untilKeys(idToken: String) throws -> (OAuthFlow, OAuthFlow.IDTokenVerification) {
        var (flow, _, _) = try exchange()
        let action = flow.tokenResponseReceived(TestIdentityProvider.tokenResponse(idToken: idToken), now: now)
        guard case .verifyIDToken(let verification) = action else {
            Issue.record("expected an id_token verification, got \(action)")
            throw HarnessError.unexpected
        }
        #expect(verification.idToken == idToken)
        return (flow, verification)
    }
}

enum HarnessError: Error { case unexpected }

extension OAuthFlow {
    /// Verifies the id_token with `keys` as the key-set cache does once it has them (the unknown-kid refetch is
    /// the cache's, tested through it), and feeds the outcome to the flow.
    mutating func verify(
        _ verification: IDTokenVerification, keys: JWKSet, source: JWKSVerification.KeySource = .fetched, now: Date
    ) -> IdentityAction {
        let result = Result { () throws(JOSEError) in
            try verification.verifier.verify(verification.idToken, keys: keys, now: now)
        }
        return idTokenVerified(
            JWKSVerification(result: result, keySource: source, keyCount: keys.keys.count), now: now)
    }
}

extension OAuthFlow.CallbackAction {
    /// The error of a `.fail` action.
    var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}

extension OAuthFlow.StateSpentAction {
    /// The error of a `.fail` action.
    var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}

extension OAuthFlow.TokenResponseAction {
    /// The error of a `.fail` action.
    var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}

extension OAuthFlow.IdentityAction {
    /// The error of a `.fail` action.
    var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}
