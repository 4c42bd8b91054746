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

@Suite("Provider logout (OpenID Connect RP-Initiated Logout)")
struct ProviderLogoutTests {
    static let endSession = "https://idp.example/oidc/logout?tenant=t1"

    /// The sandbox Google as a generic `type: oidc` issuer whose discovery advertises `end_session` (or not);
    /// `postLogoutRedirectURI` sets `providers.google.post_logout_redirect_uri`.
    static func settings(endSession: String? = Self.endSession, postLogoutRedirectURI: String? = nil)
        -> TestDeployment.Settings
    {
        var settings = TestDeployment.Settings()
        settings.providers = ["google"]
        settings.allowedReturnTo = ["/"]
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
            ]
            if let endSession { document["end_session_endpoint"] = .string(endSession) }
            var registry = ProviderRegistry.standard
            registry.register(
                OIDCPlugin(metadata: try OIDCProviderMetadata(json: .object(document), expectedIssuer: issuer)))
            let providers = configuration.providers.map { google in
                ProviderSettings(
                    name: google.name, type: "oidc", clientID: google.clientID, clientSecret: google.clientSecret,
                    scopes: ["openid", "email"], redirectURI: google.redirectURI, issuer: issuer,
                    location: google.location, postLogoutRedirectURI: postLogoutRedirectURI)
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

    func signedIn(_ app: TestDeployment, as identity: SandboxIdentity = People.alice) async throws -> TestBrowser {
        let browser = TestBrowser()
        let answer = try await app.signIn(browser, provider: "google", as: identity)
        #expect(answer.status == 302, "\(answer.text)")
        #expect(try await app.session(browser).status == 200)
        return browser
    }

    func logout(_ app: TestDeployment, _ browser: TestBrowser, _ form: [(String, String)]) async throws
        -> HTTPClientResponse
    {
        try await browser.post(app.routesURL + "/logout", form: form, from: app.appURL)
    }

    /// The query parameters of `url`, decoded.
    func parameters(_ url: String) throws -> [String: String] {
        let query = try #require(url.split(separator: "?", maxSplits: 1).last)
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }

    @Test func endsTheSessionThenSendsTheBrowserToTheEndSessionEndpointAndBack() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = try await signedIn(app)
            let hint = try #require(browser.cookie("authflow_logout_hint", for: app.appURL))
            #expect(hint.hasPrefix("v1."))
            let answer = try await logout(app, browser, [("provider_logout", "1"), ("return_to", "/after")])
            #expect(answer.status == 303)
            let location = try #require(answer.location)
            #expect(location.hasPrefix(Self.endSession + "&"))
            let query = try parameters(location)
            #expect(query["tenant"] == "t1")
            #expect(query["client_id"] == TestDeployment.clientIDs["google"])
            #expect(query["post_logout_redirect_uri"] == app.appURL + "/auth/logged-out")
            // The id_token of the sign-in: a JWT of the sandbox's issuer for alice, for this client.
            let idToken = try #require(query["id_token_hint"])
            let payload = try JSONValue.parse(Base64URL.decode(idToken.split(separator: ".")[1]))
            #expect(payload["sub"]?.stringValue == "alice-1")
            #expect(payload["aud"]?.stringValue == TestDeployment.clientIDs["google"])
            // The local session ended first, and its cookies are gone.
            #expect(try await app.session(browser).status == 401)
            #expect(browser.cookie(app.sessionCookie, for: app.appURL) == nil)
            #expect(browser.cookie("authflow_logout_hint", for: app.appURL) == nil)

            let state = try #require(query["state"])
            let back = try await browser.get(app.routesURL + "/logged-out?state=" + state)
            #expect(back.status == 303)
            #expect(back.location == "/after")
        }
    }

    /// Signs in at the provider of `app`, logs out there with `returnTo`, and returns the logout's `state`.
    func providerLogoutState(_ app: TestDeployment, returnTo: String) async throws -> String {
        let answer = try await logout(
            app, try await signedIn(app), [("provider_logout", "1"), ("return_to", returnTo)])
        #expect(answer.status == 303)
        let location = try #require(answer.location)
        return try #require(try parameters(location)["state"])
    }

    @Test func rejectsAReplayedLogoutState() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let state = try await providerLogoutState(app, returnTo: "/after")
            let browser = TestBrowser()
            let back = try await browser.get(app.routesURL + "/logged-out?state=" + state)
            #expect(back.status == 303)
            #expect(back.location == "/after")
            // The same state again, from this browser or another: refused, no redirect.
            for replaying in [browser, TestBrowser()] {
                let replay = try await replaying.get(app.routesURL + "/logged-out?state=" + state)
                #expect(replay.status == 400)
                #expect(errorCode(replay) == "logout_state_used")
                #expect(replay.location == nil)
            }
        }
    }

    @Test func aLogoutStateUsedOnOneInstanceIsRefusedByAnotherSharingTheFlowStore() async throws {
        let flows = InMemoryFlowStore(clock: SystemClock())
        var settings = Self.settings()
        settings.stores = { clock in
            var stores = SignInServer.Stores.memory(clock: clock)
            stores.flows = flows
            return stores
        }
        try await TestDeployment.with(settings) { first in
            try await TestDeployment.with(settings) { second in
                let state = try await providerLogoutState(first, returnTo: "/after")
                let back = try await TestBrowser().get(second.routesURL + "/logged-out?state=" + state)
                #expect(back.status == 303)
                #expect(back.location == "/after")
                for instance in [first, second] {
                    let replay = try await TestBrowser().get(instance.routesURL + "/logged-out?state=" + state)
                    #expect(replay.status == 400)
                    #expect(errorCode(replay) == "logout_state_used")
                }
            }
        }
    }

    @Test func aFlowStoreThatDoesNotAnswerGivesA503AndSpendsNothing() async throws {
        let flows = SwitchableFlowStore()
        var settings = Self.settings()
        settings.stores = { clock in
            var stores = SignInServer.Stores.memory(clock: clock)
            stores.flows = flows
            return stores
        }
        try await TestDeployment.with(settings) { app in
            let state = try await providerLogoutState(app, returnTo: "/after")
            flows.isDown = true
            let refused = try await TestBrowser().get(app.routesURL + "/logged-out?state=" + state)
            #expect(refused.status == 503)
            #expect(errorCode(refused) == "store_unavailable")
            #expect(refused.location == nil)
            // Nothing was spent: once the store answers, the same state brings the browser back.
            flows.isDown = false
            let back = try await TestBrowser().get(app.routesURL + "/logged-out?state=" + state)
            #expect(back.status == 303)
            #expect(back.location == "/after")
        }
    }

    @Test func withoutAnEndSessionEndpointTheLogoutIsLocalOnly() async throws {
        try await TestDeployment.with(Self.settings(endSession: nil)) { app in
            let browser = try await signedIn(app)
            #expect(browser.cookie("authflow_logout_hint", for: app.appURL) == nil)
            let answer = try await logout(app, browser, [("provider_logout", "1"), ("return_to", "/after")])
            #expect(answer.status == 302)
            #expect(answer.location == "/after")
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func withoutProviderLogoutOrASessionTheLogoutIsLocal() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = try await signedIn(app)
            let local = try await logout(app, browser, [])
            #expect(local.status == 204)
            #expect(try await app.session(browser).status == 401)
            // Signed out already: nothing to log out of at the provider.
            let again = try await logout(app, browser, [("provider_logout", "1")])
            #expect(again.status == 204)
            let other = try await signedIn(app)
            let bad = try await logout(app, other, [("provider_logout", "yes")])
            #expect(bad.status == 400)
            #expect(errorCode(bad) == "invalid_request")
        }
    }

    @Test func theConfiguredPostLogoutRedirectURIIsSent() async throws {
        let settings = Self.settings(postLogoutRedirectURI: "https://app.example/signed-out")
        try await TestDeployment.with(settings) { app in
            let browser = try await signedIn(app)
            let answer = try await logout(app, browser, [("provider_logout", "1")])
            #expect(answer.status == 303)
            let location = try #require(answer.location)
            let query = try parameters(location)
            #expect(query["post_logout_redirect_uri"] == "https://app.example/signed-out")
            // No return_to: the logged-out page sends the browser to /.
            let back = try await browser.get(app.routesURL + "/logged-out?state=" + (query["state"] ?? ""))
            #expect(back.location == "/")
        }
    }

    @Test func followsThePathPrefix() async throws {
        var settings = Self.settings()
        settings.pathPrefix = "/login"
        try await TestDeployment.with(settings) { app in
            let browser = try await signedIn(app)
            let answer = try await logout(app, browser, [("provider_logout", "1"), ("return_to", "/after")])
            #expect(answer.status == 303)
            let location = try #require(answer.location)
            let query = try parameters(location)
            #expect(query["post_logout_redirect_uri"] == app.appURL + "/login/logged-out")
            #expect(query["id_token_hint"] != nil)
            let back = try await browser.get(app.appURL + "/login/logged-out?state=" + (query["state"] ?? ""))
            #expect(back.location == "/after")
            #expect(try await browser.get(app.appURL + "/auth/logged-out?state=x").status == 404)
        }
    }

    @Test func aHintCookieOfAnotherSessionIsNotSent() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let alice = try await signedIn(app)
            let bob = try await signedIn(app, as: People.bob)
            // Bob's browser carries Alice's hint cookie: it is bound to Alice's session and does not open.
            let stolen = try #require(alice.cookie("authflow_logout_hint", for: app.appURL))
            bob.setCookie("authflow_logout_hint", stolen, for: app.appURL, path: "/auth/logout")
            let answer = try await logout(app, bob, [("provider_logout", "1")])
            #expect(answer.status == 303)
            let location = try #require(answer.location)
            let query = try parameters(location)
            #expect(query["id_token_hint"] == nil)
            #expect(query["client_id"] == TestDeployment.clientIDs["google"])
        }
    }

    @Test func aTamperedMissingOrExpiredStateIsRefused() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let answer = try await logout(app, try await signedIn(app), [("provider_logout", "1")])
            let location = try #require(answer.location)
            let state = try #require(try parameters(location)["state"])
            var bytes = try Base64URL.decode(state)
            bytes[bytes.count / 2] ^= 0x01
            let browser = TestBrowser()
            for (query, code) in [
                ("?state=" + Base64URL.encode(bytes), "invalid_logout_state"),
                ("", "invalid_logout_state"),
                ("?state=" + state + "&state=" + state, "invalid_logout_state"),
                ("?state=not-a-state", "invalid_logout_state"),
            ] {
                let refused = try await browser.get(app.routesURL + "/logged-out" + query)
                #expect(refused.status == 400, "\(query)")
                #expect(errorCode(refused) == code, "\(query)")
            }
            // A browser gets the typed error as a page.
            let page = try await browser.get(
                app.routesURL + "/logged-out?state=x", headers: [("Accept", "text/html,application/xhtml+xml")])
            #expect(page.status == 400)
            #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("invalid_logout_state"))

            app.clock.advance(by: 601)
            let expired = try await browser.get(app.routesURL + "/logged-out?state=" + state)
            #expect(expired.status == 400)
            #expect(errorCode(expired) == "logout_state_expired")
        }
    }
}

/// The round trip against the sandbox's Microsoft Entra emulator, a strict RP-Initiated Logout provider: a
/// `type: oidc` provider on a tenant's discovery, its end-session endpoint, and back.
@Suite("Provider logout against the Microsoft emulator")
struct MicrosoftProviderLogoutTests {
    static let clientID = "6731de76-14a6-49ae-97bc-6eba6914391e"

    static func settings() -> TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["google"]
        settings.allowedReturnTo = ["/"]
        settings.resolvesWithDiscovery = true
        settings.adapt = { configuration, sandbox in
            let publicURL = configuration.server?.publicURL ?? ""
            let redirectURI = publicURL + "/auth/microsoft/callback"
            // Registered as Entra does: the post-logout URI is AuthFlow's own /auth/logged-out.
            try sandbox.register(
                .microsoft(clientID: Self.clientID, clientSecret: "entra-secret-value", redirectURIs: [redirectURI]))
            let location = SourceLocation(fileName: "test.yaml", line: 1, column: 1, sourceLine: "")
            let entra = ProviderSettings(
                name: "microsoft", type: "oidc", clientID: Self.clientID, clientSecret: Secret("entra-secret-value"),
                scopes: ["openid", "profile", "email"], redirectURI: redirectURI,
                issuer: sandbox.microsoftIssuer(tenantID: SandboxMicrosoftTenant.contoso.id), location: location)
            return (
                Configuration(
                    server: configuration.server, sandbox: configuration.sandbox, store: configuration.store,
                    providers: configuration.providers + [entra]),
                ProviderRegistry.standard
            )
        }
        return settings
    }

    @Test func signsOutAtTheProviderAndComesBackToTheReturnTo() async throws {
        try await TestDeployment.with(Self.settings()) { app in
            let browser = TestBrowser()
            let identity = SandboxIdentity(
                subject: "entra-alice", email: "alice@contoso.example", givenName: "Alice", familyName: "Contoso")
            let signedIn = try await app.signIn(browser, provider: "microsoft", as: identity, returnTo: "/after")
            #expect(signedIn.status == 302, "\(signedIn.text)")
            #expect(try await app.session(browser).status == 200)

            let logout = try await browser.post(
                app.routesURL + "/logout", form: [("provider_logout", "1"), ("return_to", "/after")], from: app.appURL)
            #expect(logout.status == 303)
            let endSession = try #require(logout.location)
            #expect(endSession.hasPrefix(app.sandbox.baseURL + "/microsoft/"))
            #expect(try await app.session(browser).status == 401)

            // The emulator checks the hint (its own id_token, for this client), the registered post-logout URI,
            // and sends the browser back with the state.
            let atProvider = try await browser.get(endSession)
            #expect(atProvider.status == 302, "\(atProvider.text)")
            let back = try #require(atProvider.location)
            #expect(back.hasPrefix(app.appURL + "/auth/logged-out?"))
            let logouts = app.sandbox.logouts(for: .microsoft)
            #expect(logouts.count == 1)
            #expect(logouts.first?.subject == "entra-alice")
            #expect(logouts.first?.clientID == Self.clientID)
            #expect(logouts.first?.tenantID == SandboxMicrosoftTenant.contoso.id)

            let home = try await browser.get(back)
            #expect(home.status == 303)
            #expect(home.location == "/after")
            // The state is single-use: a replay is refused.
            let replay = try await browser.get(back)
            #expect(replay.status == 400)
            #expect(errorCode(replay) == "logout_state_used")
        }
    }
}
