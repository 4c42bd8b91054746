import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowServer

/// The passkey routes over real HTTP with a software authenticator as the browser's: sign-up, sign-in with a cookie
/// and with a bearer session, adding a passkey, the credential list, and every refusal, each leaving no user,
/// credential or session behind.
@Suite struct PasskeyRouteTests {
    static var settings: TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.providers = ["google", "passkey", "passkey2"]
        settings.rateLimits = nil
        return settings
    }

    /// A browser on the app's origin: JSON bodies, the Origin header, the session cookie once it has one.
    final class Browser: @unchecked Sendable {
        let app: TestDeployment
        var cookie: String?
        var origin: String?

        init(_ app: TestDeployment) {
            self.app = app
            origin = app.appURL
        }

        func post(_ path: String, _ body: JSONValue?, contentType: String = "application/json") async throws
            -> JSONAnswer
        {
            var headers: [(String, String)] = []
            if let origin { headers.append(("Origin", origin)) }
            if let cookie { headers.append(("Cookie", cookie)) }
            var request = HTTPClientRequest(method: "POST", url: app.appURL + path)
            request.headers["Accept"] = "application/json"
            if let body {
                request.headers["Content-Type"] = contentType
                request.body = Array(body.serialized().utf8)
            }
            for (name, value) in headers { request.headers[name] = value }
            request.timeout = 60
            let answer = JSONAnswer(response: try await CurlHTTPClient().send(request))
            if let set = answer.response.headers["Set-Cookie"], set.hasPrefix(app.sessionCookie + "=") {
                cookie = String(set.prefix { $0 != ";" })
            }
            return answer
        }

        func get(_ path: String) async throws -> JSONAnswer {
            var request = HTTPClientRequest(method: "GET", url: app.appURL + path)
            request.headers["Accept"] = "application/json"
            if let cookie { request.headers["Cookie"] = cookie }
            return JSONAnswer(response: try await CurlHTTPClient().send(request))
        }

        /// `register/options` then `register` with `authenticator`'s answer (changed by `knobs`).
        func register(
            _ authenticator: SoftwareAuthenticator, name: String = "alice@example.com", provider: String = "passkey",
            knobs: SoftwareAuthenticator.Knobs = .init(), session: String = "cookie",
            finish: (JSONValue) -> JSONValue = { $0 }
        ) async throws -> JSONAnswer {
            let options = try await post("/auth/\(provider)/register/options", ["name": .string(name)])
            try #require(
                options.status == 200,
                "options answered \(options.status): \(options.response.text) \(options.response.headers)")
            let json = try #require(options.json)
            let credential = try authenticator.register(options: json, origin: app.appURL, knobs: knobs)
            return try await post(
                "/auth/\(provider)/register",
                finish(["ceremony": json["ceremony"] ?? .null, "credential": credential, "session": .string(session)]))
        }

        /// `authenticate/options` then `authenticate` with `authenticator`'s assertion (changed by `knobs`).
        func authenticate(
            _ authenticator: SoftwareAuthenticator, provider: String = "passkey",
            knobs: SoftwareAuthenticator.Knobs = .init(), session: String = "cookie",
            finish: (JSONValue) -> JSONValue = { $0 }
        ) async throws -> JSONAnswer {
            let options = try await post("/auth/\(provider)/authenticate/options", [:])
            try #require(
                options.status == 200,
                "options answered \(options.status): \(options.response.text) \(options.response.headers)")
            let json = try #require(options.json)
            let credential = try authenticator.authenticate(options: json, origin: app.appURL, knobs: knobs)
            return try await post(
                "/auth/\(provider)/authenticate",
                finish(["ceremony": json["ceremony"] ?? .null, "credential": credential, "session": .string(session)]))
        }
    }

    /// The users the account store holds.
    static func users(_ app: TestDeployment) async throws -> [UserAccount] {
        try await app.stores.accounts.users(after: nil, limit: 100)
    }

    /// The sessions of `user`.
    static func sessions(_ app: TestDeployment, _ user: String) async throws -> Int {
        try await app.stores.sessions.sessions(userID: UserID(rawValue: user)).count
    }

    @Test func signsUpThenSignsInWithACookieAndWithABearerSession() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let authenticator = SoftwareAuthenticator()
            let browser = Browser(app)
            let signUp = try await browser.register(authenticator)
            #expect(signUp.status == 200, "\(signUp.response.text)")
            let userID = try #require(signUp["user_id"])
            #expect(signUp["provider"] == "passkey")
            #expect(signUp["credential_id"] == Base64URL.encode(authenticator.credentials[0].id))
            #expect(browser.cookie != nil)
            let session = try await browser.get("/auth/session")
            #expect(session.status == 200 && session.json?["user_id"]?.stringValue == userID)

            let app2 = Browser(app)
            app2.origin = nil
            let bearer = try await app2.authenticate(authenticator, session: "bearer")
            #expect(bearer.status == 200, "\(bearer.response.text)")
            #expect(bearer["token_type"] == "Bearer" && bearer["user_id"] == userID)
            #expect(bearer["expires_at"] != nil && bearer["credential_id"] == signUp["credential_id"])
            let token = try #require(bearer["session_token"])
            #expect(try await app.getWithBearer("/auth/session", token).status == 200)

            let again = Browser(app)
            let cookie = try await again.authenticate(authenticator)
            #expect(cookie.status == 200 && cookie["user_id"] == userID && again.cookie != nil)

            let list = try await browser.get("/auth/passkey/credentials")
            let items = try #require(list.json?["credentials"]?.arrayValue)
            #expect(items.count == 1)
            #expect(items.first?["last_used_at"]?.stringValue != nil)
            #expect(items.first?["aaguid"]?.stringValue == "00000000-0000-0000-0000-000000000000")
            let stored = try #require(
                try await (app.stores.accounts as? any PasskeyStore)?.passkeys(of: .init(rawValue: userID)).first)
            #expect(stored.signCount == authenticator.credentials[0].signCount)
        }
    }

    @Test func aSignedInUserAddsPasskeysAndManagesThem() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let browser = Browser(app)
            let first = SoftwareAuthenticator()
            let signUp = try await browser.register(first)
            let userID = try #require(signUp["user_id"])
            let second = SoftwareAuthenticator()
            let added = try await browser.register(second, name: "ignored")
            #expect(added.status == 200 && added["user_id"] == userID, "\(added.response.text)")
            // One user handle per user and provider: both credentials sign in the same identity.
            #expect(first.credentials[0].userHandle == second.credentials[0].userHandle)
            // The authenticator that holds a credential of the user is excluded.
            await #expect(throws: SoftwareAuthenticator.Refusal.self) { _ = try await browser.register(first) }
            #expect(try await Self.users(app).count == 1)

            let id = try #require(added["credential_id"])
            let renamed = try await browser.post(
                "/auth/passkey/credentials/rename", ["id": .string(id), "name": "Laptop"])
            #expect(renamed.status == 200)
            let list = try await browser.get("/auth/passkey/credentials")
            #expect(list.json?["credentials"]?.arrayValue?.contains { $0["name"]?.stringValue == "Laptop" } == true)
            #expect(try await browser.post("/auth/passkey/credentials/delete", ["id": .string(id)]).status == 200)
            let last = try await browser.post(
                "/auth/passkey/credentials/delete", ["id": signUp.json?["credential_id"] ?? .null])
            #expect(last.status == 409 && last.error == "last_identity")
            let stranger = Browser(app)
            let signedOut = try await stranger.post("/auth/passkey/credentials/delete", ["id": .string(id)])
            #expect(signedOut.status == 401)
        }
    }

    @Test func theOAuthRoutesOfAPasskeyProviderAreNotFound() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let browser = Browser(app)
            let login = try await browser.get("/auth/passkey/login")
            let callback = try await browser.get("/auth/passkey/callback")
            let native = try await browser.post("/auth/passkey/native", [:])
            let oauthOptions = try await browser.post("/auth/google/register/options", [:])
            #expect(login.status == 404 && callback.status == 404 && native.status == 404)
            #expect(oauthOptions.status == 404)
        }
    }

    /// Every registration refusal: its status and code, and nothing stored.
    @Test func everyRegistrationRefusalLeavesNothingBehind() async throws {
        func knobs(_ change: (inout SoftwareAuthenticator.Knobs) -> Void) -> SoftwareAuthenticator.Knobs {
            var knobs = SoftwareAuthenticator.Knobs()
            change(&knobs)
            return knobs
        }
        let cases: [(String, SoftwareAuthenticator.Knobs, String)] = [
            ("cross-origin", knobs { $0.crossOrigin = true }, "cross_origin"),
            ("rpIdHash", knobs { $0.rpIDForHash = "other.example" }, "rp_id_mismatch"),
            ("UP missing", knobs { $0.userPresent = false }, "user_not_present"),
            ("UV missing", knobs { $0.userVerified = false }, "user_not_verified"),
            ("BS without BE", knobs { $0.backedUp = true }, "backup_state_invalid"),
            ("wrong type", knobs { $0.type = "webauthn.get" }, "wrong_ceremony_type"),
            ("challenge", knobs { $0.challenge = Array(repeating: 1, count: 32) }, "challenge_mismatch"),
            ("malformed CBOR", knobs { $0.attestationObject = { _ in [0xA3, 0x63] } }, "malformed_cbor"),
            (
                "oversized CBOR", knobs { $0.attestationObject = { $0 + Array(repeating: 0, count: 40_000) } },
                "malformed_cbor"
            ),
            ("credential id too long", knobs { $0.credentialIDLength = 1024 }, "credential_id_too_long"),
            ("attestation", knobs { $0.attestation = .packedSelfBadSignature }, "attestation_invalid"),
        ]
        try await TestDeployment.with(Self.settings) { app in
            for (label, knob, code) in cases {
                let answer = try await Browser(app).register(SoftwareAuthenticator(), knobs: knob)
                #expect(
                    answer.status == 400 && answer.error == code, "\(label): \(answer.status) \(answer.response.text)")
                #expect(try await Self.users(app).isEmpty, "\(label)")
            }
            // Wrong origin: the browser answers for another site.
            let browser = Browser(app)
            let options = try await browser.post("/auth/passkey/register/options", ["name": "a"])
            let json = try #require(options.json)
            let credential = try SoftwareAuthenticator().register(options: json, origin: "http://evil.localhost")
            let foreign = try await browser.post(
                "/auth/passkey/register", ["ceremony": json["ceremony"] ?? .null, "credential": credential])
            #expect(foreign.error == "origin_mismatch")
            #expect(try await Self.users(app).isEmpty)
        }
    }

    @Test func aCeremonyIsUsedOnceExpiresAndNamesItsKindAndProvider() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let browser = Browser(app)
            let authenticator = SoftwareAuthenticator()
            var kept: JSONValue = .null
            let first = try await browser.register(authenticator) { body in
                kept = body
                return body
            }
            #expect(first.status == 200)
            let reused = try await Browser(app).post("/auth/passkey/register", kept)
            #expect(reused.status == 400 && reused.error == "ceremony_reused")

            let other = Browser(app)
            let options = try await other.post("/auth/passkey/register/options", ["name": "b"])
            let json = try #require(options.json)
            let credential = try SoftwareAuthenticator().register(options: json, origin: app.appURL)
            let body: JSONValue = ["ceremony": json["ceremony"] ?? .null, "credential": credential]
            #expect(try await other.post("/auth/passkey2/register", body).error == "ceremony_provider_mismatch")
            #expect(try await other.post("/auth/passkey/authenticate", body).error == "ceremony_kind_mismatch")
            #expect(
                try await other.post("/auth/passkey/register", ["ceremony": "AAAA", "credential": credential]).error
                    == "ceremony_invalid")
            app.clock.advance(by: 301)
            #expect(try await other.post("/auth/passkey/register", body).error == "ceremony_expired")
            #expect(try await Self.users(app).count == 1)
        }
    }

    @Test func everyAuthenticationRefusalLeavesNoSession() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let alice = SoftwareAuthenticator()
            let bob = SoftwareAuthenticator()
            let aliceID = try #require(try await Browser(app).register(alice)["user_id"])
            let bobID = try #require(try await Browser(app).register(bob, name: "bob")["user_id"])
            let sessionsBefore = try await Self.sessions(app, aliceID)

            var knobs = SoftwareAuthenticator.Knobs()
            knobs.corruptSignature = true
            #expect(try await Browser(app).authenticate(alice, knobs: knobs).error == "signature_invalid")
            knobs = .init()
            knobs.userVerified = false
            #expect(try await Browser(app).authenticate(alice, knobs: knobs).error == "user_not_verified")
            knobs = .init()
            knobs.userHandle = .some(bob.credentials[0].userHandle)
            #expect(try await Browser(app).authenticate(alice, knobs: knobs).error == "user_handle_mismatch")
            knobs = .init()
            knobs.signCount = 0
            knobs.signCountStep = 0
            #expect(try await Browser(app).authenticate(alice).status == 200)
            #expect(try await Browser(app).authenticate(alice, knobs: knobs).error == "sign_count_not_increased")
            // A credential this server never registered.
            let stranger = SoftwareAuthenticator()
            _ = try stranger.register(
                options: [
                    "rp": ["id": "localhost", "name": "x"], "user": ["id": "AQID", "name": "s", "displayName": "s"],
                    "challenge": "AAAA", "pubKeyCredParams": [["type": "public-key", "alg": -7]],
                ],
                origin: app.appURL)
            #expect(try await Browser(app).authenticate(stranger).error == "unknown_credential")
            #expect(try await Self.sessions(app, aliceID) == sessionsBefore + 1)
            #expect(try await Self.sessions(app, bobID) == 1)
        }
    }

    @Test func badBodiesAreRefusedWithTypedErrors() async throws {
        try await TestDeployment.with(Self.settings) { app in
            let browser = Browser(app)
            let notJSON = try await browser.post("/auth/passkey/register", ["a": 1], contentType: "text/plain")
            #expect(notJSON.status == 415)
            var request = HTTPClientRequest(method: "POST", url: app.appURL + "/auth/passkey/authenticate")
            request.headers["Content-Type"] = "application/json"
            request.headers["Origin"] = app.appURL
            request.body = Array("{not json".utf8)
            let broken = JSONAnswer(response: try await CurlHTTPClient().send(request))
            #expect(broken.status == 400 && broken.error == "invalid_request")
            let noName = try await browser.post("/auth/passkey/register/options", [:])
            #expect(noName.status == 400 && noName.error == "invalid_request")
            let crossSite = Browser(app)
            crossSite.origin = "http://evil.example"
            #expect(try await crossSite.post("/auth/passkey/authenticate/options", [:]).status == 403)
            #expect(try await Self.users(app).isEmpty)
        }
    }

    @Test func signUpIsRefusedWhenSignupIsOff() async throws {
        var settings = Self.settings
        settings.signup = false
        try await TestDeployment.with(settings) { app in
            let answer = try await Browser(app).post("/auth/passkey/register/options", ["name": "a"])
            #expect(answer.status == 403 && answer.error == "signup_disabled")
            #expect(try await Self.users(app).isEmpty)
        }
    }
}
