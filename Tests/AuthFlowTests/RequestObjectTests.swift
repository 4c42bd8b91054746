import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// Signed request objects (RFC 9101): `request_object: signed` (or a provider that demands one) signs every
/// authorization parameter with the `private_key_jwt` key, in the redirect or inside the pushed request.
@Suite struct RequestObjectTests {
    let key: JWK

    init() throws {
        key = try JWK.generateP256(keyID: "ro-1")
    }

    func provider(
        method: ClientAuthentication = .privateKeyJWT, mode: RequestObjectMode = .signed, pushes: Bool = false,
        demanded: Bool = false
    ) throws -> ResolvedProvider {
        var plugin = ClientAuthenticationTests.ChoosingPlugin()
        plugin.requiresSignedRequestObject = demanded
        plugin.pushedAuthorizationEndpoint = pushes ? "https://c.test/par" : nil
        var settings = ProviderSettings(
            name: "c", type: "choosing", clientID: "cid", clientSecret: method == .privateKeyJWT ? nil : Secret("s"),
            keyID: "ro-1",
            privateKey: method == .privateKeyJWT ? Secret(try key.pkcs8PEM()) : nil, capabilities: ["pkce": true],
            issuer: "https://c.test", location: TestProviders.location, clientAuthentication: method)
        settings.requestObject = mode
        return try ProviderRegistry([plugin]).resolve(settings, publicURL: TestProviders.publicURL)
    }

    func begin(_ provider: ResolvedProvider) throws -> (OAuthFlow, OAuthFlow.StartAction) {
        var flow = OAuthFlow(provider: provider)
        let harness = FlowHarness(provider)
        let action = try flow.begin(
            returnTo: "/", intent: .login, browserBinding: harness.binding, secrets: harness.secrets, now: harness.now)
        return (flow, action)
    }

    func claims(of object: String) throws -> [String: JSONValue] {
        let verified = try JWSVerifier(allowedAlgorithms: [.es256]).verify(object, keys: JWKSet(keys: [key.publicKey]))
        #expect(verified.header.type == "oauth-authz-req+jwt")
        #expect(verified.header.keyID == "ro-1")
        return try #require(try JSONValue.parse(verified.payload).objectValue)
    }

    @Test func signsEveryParameterIntoTheRedirect() throws {
        let provider = try provider()
        #expect(provider.signsRequestObject)
        let (flow, action) = try begin(provider)
        guard case .redirect(let redirect) = action else { throw CancellationError() }
        let url = try #require(URLComponents(string: redirect.url))
        #expect(url.queryItems?.map(\.name) == ["client_id", "response_type", "scope", "request"])
        let claims = try claims(of: try #require(url.queryItems?.last?.value))
        let secrets = FlowHarness(provider).secrets
        #expect(claims["state"] == .string(secrets.state))
        #expect(claims["code_challenge_method"] == "S256")
        #expect(claims["redirect_uri"] == .string(provider.redirectURI))
        #expect(claims["iss"] == "cid")
        #expect(claims["aud"] == "https://c.test")
        #expect(claims["exp"]?.int64Value == (claims["nbf"]?.int64Value).map { $0 + 60 })
        #expect(claims["jti"]?.stringValue?.isEmpty == false)
        #expect(flow.trace.last?.checks.contains("request_object") == true)
    }

    @Test func travelsInsideThePushedRequest() throws {
        let (_, action) = try begin(try provider(pushes: true))
        guard case .pushAuthorizationRequest(let request) = action else { throw CancellationError() }
        let form = FormURLEncoding.decode(String(decoding: request.body ?? [], as: UTF8.self))
        #expect(
            form.map(\.0).filter { $0 != "client_assertion_type" && $0 != "client_assertion" } == [
                "request", "client_id",
            ])
        let object = try #require(form.first { $0.0 == "request" }?.1)
        #expect(try claims(of: object)["response_type"] == "code")
    }

    @Test func needsThePrivateKeyJWTKey() throws {
        #expect {
            _ = try provider(method: .clientSecretPost)
        } throws: { error in
            let issue = (error as? ConfigurationError)?.issues.first
            return issue?.code == .invalidValue && issue?.message.contains("client_auth: private_key_jwt") == true
        }
        #expect(try provider(mode: .auto).signsRequestObject == false)
    }

    @Test func noneNeverSignsAndIsRefusedWhereTheProviderDemandsSigning() throws {
        #expect(try provider(mode: .none).signsRequestObject == false)
        #expect(try provider(mode: .auto, demanded: true).signsRequestObject)
        #expect {
            _ = try provider(mode: .none, demanded: true)
        } throws: { error in
            let issue = (error as? ConfigurationError)?.issues.first
            return issue?.code == .invalidValue && issue?.message.contains("require_signed_request_object") == true
        }
    }
}
