import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowOIDC
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// The sandbox Google as a generic `type: oidc` issuer whose discovery document is `extra` over the basics.
enum GenericOIDCSettings {
    static let clientID = "123.apps.googleusercontent.com"

    static func settings(_ extra: [String: JSONValue]) -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["google"]
        settings.adapt = { configuration, sandbox in
            let issuer = sandbox.issuer(for: .google) ?? ""
            let endpoints = sandbox.endpoints(for: .google)
            var document: [String: JSONValue] = [
                "issuer": .string(issuer), "authorization_endpoint": .string(endpoints.authorization),
                "token_endpoint": .string(endpoints.token), "jwks_uri": .string(endpoints.jwks ?? ""),
                "userinfo_endpoint": .string(endpoints.userinfo ?? ""),
                "response_types_supported": .array([.string("code")]),
                "id_token_signing_alg_values_supported": .array([.string("RS256")]),
                "token_endpoint_auth_methods_supported": .array([.string("client_secret_post")]),
                "code_challenge_methods_supported": .array([.string("S256")]),
            ]
            document.merge(extra) { $1 }
            var registry = ProviderRegistry.standard
            registry.register(
                OIDCPlugin(metadata: try OIDCProviderMetadata(json: .object(document), expectedIssuer: issuer)))
            let providers = configuration.providers.map { google in
                ProviderSettings(
                    name: google.name, type: "oidc", clientID: google.clientID, clientSecret: google.clientSecret,
                    scopes: ["openid", "email"], redirectURI: google.redirectURI, issuer: issuer,
                    location: google.location)
            }
            return (
                Configuration(
                    server: configuration.server, sandbox: configuration.sandbox, store: configuration.store,
                    providers: providers),
                registry
            )
        }
        return settings
    }
}

@Suite("OpenID Connect front-channel logout")
struct FrontChannelLogoutTests {
    static func settings(supported: Bool = true, sessionRequired: Bool = true) -> TestDeployment.Settings {
        GenericOIDCSettings.settings([
            "frontchannel_logout_supported": .bool(supported),
            "frontchannel_logout_session_required": .bool(sessionRequired),
        ])
    }

    /// The deployment's front-channel logout URI, registered with the sandbox issuer (its id_tokens then carry `sid`).
    @discardableResult
    func register(_ app: TestDeployment) -> String {
        let uri = app.routesURL + "/google/frontchannel-logout"
        app.sandbox.registerFrontChannelLogout(uri, provider: .google, clientID: GenericOIDCSettings.clientID)
        return uri
    }

    func signedIn(_ app: TestDeployment, as identity: SandboxIdentity) async throws -> TestBrowser {
        let browser = TestBrowser()
        let answer = try await app.signIn(browser, provider: "google", as: identity)
        #expect(answer.status == 302, "\(answer.text)")
        #expect(try await app.session(browser).status == 200)
        return browser
    }

    /// The provider session id the sandbox gave `subject`'s sign-in, read from the iframe URL its logout renders.
    func providerLogout(_ app: TestDeployment, subject: String) async throws -> [String] {
        let page = try await CurlHTTPClient().send(
            HTTPClientRequest(
                method: "GET",
                url: app.sandbox.frontChannelEndSessionEndpoint(for: .google) + "?"
                    + FormURLEncoding.encode([("logout_hint", subject)])))
        #expect(page.status == 200, "\(page.text)")
        let html = page.text
        var sources: [String] = []
        var rest = Substring(html)
        while let start = rest.range(of: "<iframe class=\"frontchannel\" src=\"") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            sources.append(String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&"))
            rest = rest[end...]
        }
        return sources
    }

    /// A plain GET, as the iframe sends it: no session cookie (the issuer's page is another site).
    func get(_ url: String) async throws -> HTTPClientResponse {
        try await CurlHTTPClient().send(HTTPClientRequest(method: "GET", url: url))
    }

    func frontChannelURL(_ app: TestDeployment, _ pairs: [(String, String)]) -> String {
        app.routesURL + "/google/frontchannel-logout" + (pairs.isEmpty ? "" : "?" + FormURLEncoding.encode(pairs))
    }

    @Test func theIssuersLogoutPageEndsThatProviderSessionThroughItsIframe() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let uri = register(app)
            let alice = try await signedIn(app, as: People.alice)
            let bob = try await signedIn(app, as: People.bob)
            let frames = try await providerLogout(app, subject: People.alice.subject)
            try #require(frames.count == 1, "\(frames)")
            let issuer = try #require(app.sandbox.issuer(for: .google))
            #expect(frames[0].hasPrefix(uri + "?"))
            #expect(frames[0].contains(FormURLEncoding.encode([("iss", issuer)])))
            #expect(frames[0].contains("sid="))
            let response = try await get(frames[0])
            #expect(response.status == 200, "\(response.text)")
            #expect(response.text.contains("frontchannel-logout"))
            #expect(response.headers["Cache-Control"] == "no-store")
            let origin = try #require(ResponseFactory.origin(of: issuer))
            let policy = try #require(response.headers["Content-Security-Policy"])
            #expect(policy.contains("frame-ancestors \(origin)"), "\(policy)")
            #expect(response.headers["X-Frame-Options"] == nil)
            #expect(try await app.session(alice).status == 401)
            // Bob signed in with another provider session: untouched.
            #expect(try await app.session(bob).status == 200)
            // The same request again ends nothing more and still answers the page.
            #expect(try await get(frames[0]).status == 200)
            #expect(try await app.session(bob).status == 200)
        }
    }

    @Test func theIdTokenSidIsWhatTheSessionKeeps() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            register(app)
            let alice = try await signedIn(app, as: People.alice)
            let frames = try await providerLogout(app, subject: People.alice.subject)
            let sid = try sidOf(frames)
            let user = try #require(await userID(app, alice))
            let sessions = try await app.stores.sessions.sessions(userID: user)
            #expect(sessions.map(\.record.providerSessionID) == [sid])
        }
    }

    /// The `sid` of the first iframe URL.
    func sidOf(_ frames: [String]) throws -> String {
        let first = try #require(frames.first)
        let items = URLComponents(string: first)?.queryItems ?? []
        return try #require(items.first { $0.name == "sid" }?.value)
    }

    func userID(_ app: TestDeployment, _ browser: TestBrowser) async throws -> UserID? {
        (try await app.session(browser).json?["user_id"]?.stringValue).map(UserID.init(rawValue:))
    }

    @Test(arguments: ["wrong-iss", "no-sid", "no-iss", "neither", "sid-twice", "empty-sid", "long-sid"])
    func refusedRequestsEndNothingAndAreNotFramable(_ refusal: String) async throws {
        try await TestDeployment.with(Self.settings()) { app in
            register(app)
            let alice = try await signedIn(app, as: People.alice)
            let frames = try await providerLogout(app, subject: People.alice.subject)
            let sid = try sidOf(frames)
            let issuer = try #require(app.sandbox.issuer(for: .google))
            let pairs: [(String, String)] =
                switch refusal {
                case "wrong-iss": [("iss", "https://issuer.example.com"), ("sid", sid)]
                case "no-sid": [("iss", issuer)]
                case "no-iss": [("sid", sid)]
                case "sid-twice": [("iss", issuer), ("sid", sid), ("sid", sid)]
                case "empty-sid": [("iss", issuer), ("sid", "")]
                case "long-sid": [("iss", issuer), ("sid", String(repeating: "s", count: 256))]
                default: []
                }
            let response = try await get(frontChannelURL(app, pairs))
            #expect(response.status == 400, "\(refusal): \(response.text)")
            #expect(errorCode(response) == "invalid_request")
            #expect(response.headers["X-Frame-Options"] == "DENY")
            #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors http") != true)
            #expect(try await app.session(alice).status == 200)
        }
    }

    @Test func anotherSidEndsNothing() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            register(app)
            let alice = try await signedIn(app, as: People.alice)
            let issuer = try #require(app.sandbox.issuer(for: .google))
            let response = try await get(frontChannelURL(app, [("iss", issuer), ("sid", "another-provider-session")]))
            #expect(response.status == 200)
            #expect(try await app.session(alice).status == 200)
        }
    }

    @Test func withoutTheSessionRequiredARequestWithoutSidEndsNothing() async throws {
        try await TestDeployment.with(Self.settings(sessionRequired: false)) { app in
            register(app)
            let alice = try await signedIn(app, as: People.alice)
            let response = try await get(frontChannelURL(app, []))
            #expect(response.status == 200)
            #expect(response.headers["X-Frame-Options"] == nil)
            #expect(try await app.session(alice).status == 200)
            // A wrong iss is refused all the same, and so is a sid without iss.
            let wrong = try await get(frontChannelURL(app, [("iss", "https://issuer.example.com")]))
            #expect(wrong.status == 400)
            let sidAlone = try await get(frontChannelURL(app, [("sid", "a-provider-session")]))
            #expect(sidAlone.status == 400)
            #expect(try await app.session(alice).status == 200)
        }
    }

    @Test func everyOtherRouteStillForbidsFraming() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            register(app)
            let alice = try await signedIn(app, as: People.alice)
            for path in ["/session", "/check", "/google/login", "/healthz", "/nowhere"] {
                let response = try await alice.get(app.routesURL + path)
                #expect(response.headers["X-Frame-Options"] == "DENY", "\(path)")
                #expect(
                    response.headers["Content-Security-Policy"]?.contains("frame-ancestors http") != true, "\(path)")
            }
        }
    }

    @Test func noEndpointWhenDiscoveryDoesNotAdvertiseFrontChannelLogout() async throws {
        try await TestDeployment.with(Self.settings(supported: false)) { app in
            let issuer = try #require(app.sandbox.issuer(for: .google))
            let response = try await get(frontChannelURL(app, [("iss", issuer), ("sid", "s")]))
            #expect(response.status == 404)
        }
    }

    @Test func onlyAnEndpointFramableByTheIssuerGetsAFramingPolicy() {
        var page = HTTPServerResponse.html("<p>hi</p>")
        page.headers["Content-Security-Policy"] = "default-src 'none'; frame-ancestors https://evil.example"
        page.headers["X-Frame-Options"] = "ALLOWALL"
        // A plugin's page for an ordinary endpoint cannot make itself framable.
        let plain = ProviderEventEndpoint(path: "events", method: "POST")
        let kept = ProviderEventRoutes.framed(page, endpoint: plain, issuer: "https://op.example")
        #expect(!ResponseFactory.allowsFraming(kept))
        // The framable endpoint gets the issuer's origin alone, whatever the plugin wrote.
        var frontChannel = ProviderEventEndpoint(path: "frontchannel-logout", method: "GET")
        frontChannel.framableByIssuer = true
        let framed = ProviderEventRoutes.framed(page, endpoint: frontChannel, issuer: "https://op.example/tenant")
        #expect(framed.headers["Content-Security-Policy"]?.hasSuffix("frame-ancestors https://op.example") == true)
        #expect(framed.headers["X-Frame-Options"] == nil)
        #expect(framed.headers["Cache-Control"] == "no-store")
        // Without an issuer origin nothing is framable.
        let orphan = ProviderEventRoutes.framed(page, endpoint: frontChannel, issuer: nil)
        #expect(!ResponseFactory.allowsFraming(orphan))
    }

    @Test func onlyAPolicyNamingAnOriginLiftsDeny() {
        func framable(_ policy: String?) -> Bool {
            var response = HTTPServerResponse.empty(status: 200)
            response.headers["Content-Security-Policy"] = policy
            return ResponseFactory.allowsFraming(response)
        }
        #expect(framable("default-src 'none'; frame-ancestors https://op.example"))
        #expect(!framable("default-src 'none'; frame-ancestors 'none'"))
        #expect(!framable("default-src 'none'"))
        #expect(!framable(nil))
        #expect(ResponseFactory.origin(of: "https://op.example:8443/tenant/v2") == "https://op.example:8443")
        #expect(ResponseFactory.origin(of: "https://op.example") == "https://op.example")
        #expect(ResponseFactory.origin(of: "javascript:alert(1)") == nil)
        #expect(ResponseFactory.origin(of: "https://op.example;script-src *") == nil)
    }
}
