package import AuthFlow
package import AuthFlowHTTP
package import AuthFlowJOSE
import AuthFlowProviders
package import Foundation
import Testing

/// Fixtures shared by the provider plugins' test targets: settings, resolution through the standard registry,
/// a flow driven to its token exchange, signed id_tokens and canned responses.

package enum Fixtures {
    package static let now = Date(timeIntervalSince1970: 1_750_000_000)
    package static let binding = "browser-binding"
    package static let secrets = FlowSecrets(
        state: "state-0123456789abcdef0123456789abcdef012", nonce: "nonce-0123456789abcdef0123456789abcdef012",
        pkceVerifier: "verifier-0123456789abcdef0123456789abcdef01")

    package static let appleKey: JWK = {
        do { return try JWK.generateP256(keyID: "KEY1234567") } catch { fatalError("key generation: \(error)") }
    }()
    package static let providerKey: JWK = {
        do { return try JWK.generateRSA(keyID: "idp-1") } catch { fatalError("key generation: \(error)") }
    }()

    package static func location(_ line: Int = 1, _ column: Int = 3) -> AuthFlow.SourceLocation {
        AuthFlow.SourceLocation(fileName: "providers.yaml", line: line, column: column, sourceLine: nil)
    }

    package static func apple(scopes: [String]? = nil, capabilities: [String: Bool] = [:], audiences: [String] = [])
        throws -> ProviderSettings
    {
        ProviderSettings(
            name: "apple", type: "apple", clientID: "com.example.web", audiences: audiences, teamID: "ABCDE12345",
            keyID: "KEY1234567", privateKey: Secret(try appleKey.pkcs8PEM()), scopes: scopes,
            capabilities: capabilities, location: location())
    }

    package static func settings(_ type: String, capabilities: [String: Bool] = [:], scopes: [String]? = nil)
        -> ProviderSettings
    {
        ProviderSettings(
            name: type, type: type, clientID: "client-id", clientSecret: Secret("app-secret"), scopes: scopes,
            capabilities: capabilities, location: location())
    }

    package static func resolve(_ settings: ProviderSettings) throws -> ResolvedProvider {
        try ProviderRegistry.standard.resolve(settings, publicURL: "https://app.example")
    }

    package static func issues(_ settings: ProviderSettings) -> [ConfigurationIssue] {
        do {
            _ = try ProviderRegistry.standard.resolve(settings, publicURL: "https://app.example")
            return []
        } catch {
            return error.issues
        }
    }

    /// Drives a flow to the code exchange; `extra` is added to the callback parameters.
    package static func exchange(_ provider: ResolvedProvider, extra: [(String, String)] = [])
        -> (OAuthFlow, OAuthFlow.StateSpentAction, OAuthFlow.AuthorizationRedirect?)
    {
        var starter = OAuthFlow(provider: provider)
        let redirect: OAuthFlow.AuthorizationRedirect
        do throws(SignInError) {
            redirect = try starter.start(
                returnTo: "/", intent: .login, browserBinding: binding, secrets: secrets, now: now)
        } catch {
            return (starter, .fail(error), nil)
        }
        var flow = OAuthFlow(provider: provider)
        let received = flow.callbackReceived(
            method: provider.callbackMethod,
            parameters: CallbackParameters([("code", "the-code"), ("state", secrets.state)] + extra),
            flowRecord: redirect.record, now: now)
        if case .fail(let error) = received { return (flow, .fail(error), redirect) }
        let action = flow.stateSpent(true, now: now)
        return (flow, action, redirect)
    }

    package static func idToken(_ claims: [String: JSONValue]) throws -> String {
        try JWS.sign(payload: Array(JSONValue.object(claims).serialized().utf8), key: providerKey)
    }

    package static var keySet: JWKSet { JWKSet(keys: [providerKey.publicKey]) }

    package static func tokenResponse(idToken: String?) -> HTTPClientResponse {
        var body: [String: JSONValue] = ["access_token": "access-token-value", "token_type": "Bearer"]
        if let idToken { body["id_token"] = .string(idToken) }
        return json(body)
    }

    package static func json(_ object: [String: JSONValue], status: Int = 200) -> HTTPClientResponse {
        HTTPClientResponse(status: status, headers: [:], body: Array(JSONValue.object(object).serialized().utf8))
    }

    package static func query(_ url: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] where result[item.name] == nil {
            result[item.name] = item.value ?? ""
        }
        return result
    }

    package static func form(_ body: [UInt8]?) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(String(decoding: body ?? [], as: UTF8.self))
        where result[name] == nil {
            result[name] = value
        }
        return result
    }
}

extension OAuthFlow {
    /// Feeds a token response; an id_token is verified with `keys` as the key-set cache does once it has them,
    /// and the outcome fed back.
    package mutating func tokensReceived(
        _ response: HTTPClientResponse, keys: JWKSet = Fixtures.keySet, now: Date = Fixtures.now
    ) -> IdentityAction {
        switch tokenResponseReceived(response, now: now) {
        case .verifyIDToken(let verification):
            let result = Result { () throws(JOSEError) in
                try verification.verifier.verify(verification.idToken, keys: keys, now: now)
            }
            return idTokenVerified(
                JWKSVerification(result: result, keySource: .fetched, keyCount: keys.keys.count), now: now)
        case .fetchUserinfo(let request): return .fetchUserinfo(request)
        case .fail(let error): return .fail(error)
        }
    }
}

extension OAuthFlow.CallbackAction {
    package var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}

extension OAuthFlow.StateSpentAction {
    package var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}

extension OAuthFlow.TokenResponseAction {
    package var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}

extension OAuthFlow.IdentityAction {
    package var failure: SignInError? {
        if case .fail(let error) = self { return error }
        return nil
    }
}

/// Drives a sign-in with `provider` to the id_token: a token response carrying an id_token of the standard claims
/// (`iss`, `sub` `user-1`, `aud`, `exp`, `iat`, and the flow's `nonce` unless `nonce` is false) merged with
/// `extra`.
package func signIn(_ provider: ResolvedProvider, claims extra: [String: JSONValue], nonce: Bool = true) throws
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
