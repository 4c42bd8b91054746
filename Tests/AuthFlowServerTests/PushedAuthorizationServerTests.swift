import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// The server's login and callback routes with pushed authorization requests (RFC 9126), signed request objects
/// (RFC 9101) and `private_key_jwt`, against the sandbox's OpenID issuer in its strict FAPI 2.0 mode.
@Suite("Pushed authorization requests through the server")
struct PushedAuthorizationServerTests {
    /// The sandbox's OpenID issuer as a `type: oidc` provider `google` with `par: required` and a
    /// `private_key_jwt` client registered with its key; `parameters` go into `authorization_params`.
    static func settings(parameters: [String: String] = [:]) throws -> TestDeployment.Settings {
        let key = try JWK.generateP256(keyID: "fapi-key")
        let pem = try key.pkcs8PEM()
        var settings = TestDeployment.Settings()
        settings.providers = ["google"]
        settings.fapi2 = true
        settings.resolvesWithDiscovery = true
        settings.adapt = { configuration, sandbox in
            let providers = try configuration.providers.map { google in
                let redirectURI =
                    google.redirectURI
                    ?? google.redirectURI(
                        publicURL: configuration.publicURL ?? "", pathPrefix: configuration.pathPrefix)
                try sandbox.register(
                    .openID(clientID: "fapi-client", redirectURIs: [redirectURI], assertionKeys: [key]))
                var provider = ProviderSettings(
                    name: google.name, type: "oidc", clientID: "fapi-client", keyID: "fapi-key",
                    privateKey: Secret(pem), redirectURI: redirectURI, issuer: sandbox.issuer(for: .google),
                    authorizationParameters: parameters, location: google.location,
                    clientAuthentication: .privateKeyJWT)
                provider.pushedAuthorization = .required
                return provider
            }
            return (
                Configuration(
                    server: configuration.server, sandbox: configuration.sandbox, store: configuration.store,
                    providers: providers),
                ProviderRegistry.standard
            )
        }
        return settings
    }

    @Test func signsInThroughTheLoginAndCallbackRoutes() async throws {
        try await TestDeployment.with(try Self.settings()) { app in
            let browser = TestBrowser()
            let start = try await browser.get(app.routesURL + "/google/login")
            #expect(start.status == 302)
            let redirect = try #require(start.location)
            let location = try #require(URLComponents(string: redirect))
            #expect(location.queryItems?.map(\.name) == ["client_id", "request_uri"])

            let answer = try await app.signIn(browser, provider: "google", as: People.alice)
            #expect(answer.status == 302, "\(answer.text)")
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func aRefusedPushAnswersTheLoginWithATypedError() async throws {
        try await TestDeployment.with(try Self.settings(parameters: ["access_type": "sometimes"])) { app in
            let browser = TestBrowser()
            let start = try await browser.get(app.routesURL + "/google/login")
            #expect(start.status == 502)
            let body = try JSONValue.parse(start.body)
            #expect(body["error"] == "pushed_authorization_error")
            #expect(start.headers["Set-Cookie"] == nil, "no flow cookie for a start that failed")
        }
    }
}
