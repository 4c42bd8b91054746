import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Native apps: ID-token sign-in with server-issued nonces, bearer sessions")
struct NativeSignInTests {
    static let firstLogin: JSONValue = .object(["name": .object(["firstName": "Alice", "lastName": "Example"])])

    @Test func appleSignInExchangesTheCodeAsTheBundleIDAndTakesTheFirstLoginName() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let answer = try await app.nativeSignIn("apple", as: People.alice, user: Self.firstLogin)
            #expect(answer.status == 200, "\(answer.response.text)")
            #expect(answer["token_type"] == "Bearer")
            #expect(answer["provider"] == "apple")
            #expect(answer["subject"] == "alice-1")
            #expect(answer["email"] == "alice@example.com")
            #expect(answer["name"] == "Alice Example")
            #expect(answer.json?["email_verified"] == .bool(true))
            #expect(answer.response.headers["Set-Cookie"] == nil)
            let token = try #require(answer["session_token"])
            // The code was exchanged once, as the bundle id; the refresh token is kept for that client.
            #expect(app.sandbox.requestCounts(for: .apple).token == 1)
            let stored = try await app.stores.accounts.tokens(for: IdentityKey(provider: "apple", subject: "alice-1"))
            #expect(stored?.refreshToken != nil)
            #expect(stored?.clientID == NativeApp.bundleID)
            // The bearer works wherever the cookie does.
            let session = try await app.getWithBearer("/auth/session", token)
            #expect(session.status == 200)
            #expect(session["user_id"] == answer["user_id"])
            #expect(session["name"] == "Alice Example")
            let check = try await app.getWithBearer("/auth/check", token)
            #expect(check.status == 202)
            #expect(check.response.headers["X-Auth-User"] == answer["user_id"])
            // Stored as a bearer session, under its digest only.
            let record = try await app.stores.sessions.session(id: token)
            #expect(record?.kind == .bearer)
            let lifetime = try #require(record).expiresAt.timeIntervalSince(try #require(record).createdAt)
            #expect(lifetime == 30 * 86_400)
        }
    }

    @Test func accountDeletionWithABearerRevokesTheAppleRefreshTokenAsTheBundleID() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let token = try #require(try await app.nativeSignIn("apple", as: People.alice)["session_token"])
            let deleted = try await app.postJSON(
                app.appURL + "/auth/account/delete", nil, headers: [("Authorization", "Bearer \(token)")])
            #expect(deleted.status == 204, "\(deleted.response.text)")
            let revocations = app.sandbox.revocations(for: .apple)
            #expect(revocations.count == 1)
            #expect(revocations.first?.clientID == NativeApp.bundleID)
            #expect(revocations.first?.kind == .refreshToken)
            #expect(try await app.getWithBearer("/auth/session", token).status == 401)
        }
    }

    @Test func aReusedAppleCodeRefusesTheSignInAndWritesNothing() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let nonce = try await app.nativeNonce("apple")
            let first = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(nonce))
            let code = try #require(first.code)
            let signedIn = try await app.nativeSignIn(
                "apple", ["id_token": .string(first.idToken), "nonce": .string(nonce), "code": .string(code)])
            #expect(signedIn.status == 200)
            // Bob's sign-in carries Alice's spent code: refused at Apple, and Bob gets no user.
            let second = try await app.nativeNonce("apple")
            let bob = try await app.sandboxCredential(
                "apple", as: People.bob, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(second))
            let replayed = try await app.nativeSignIn(
                "apple", ["id_token": .string(bob.idToken), "nonce": .string(second), "code": .string(code)])
            #expect(replayed.status == 401)
            #expect(replayed.error == "token_endpoint_error")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "apple", subject: "bob-2")) == nil)
        }
    }

    @Test func googleTakesTheServerAudiencePresentedByANativeClient() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let answer = try await app.nativeSignIn("google", as: People.alice)
            #expect(answer.status == 200, "\(answer.response.text)")
            #expect(answer["provider"] == "google")
            #expect(answer["subject"] == "alice-1")
            #expect(answer["email"] == "alice@example.com")
            // Google has no code to exchange.
            #expect(app.sandbox.requestCounts(for: .google).token == 0)
        }
    }

    @Test func googleRefusesAWrongAzpAWrongAudAndAWebToken() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let wrongAzp = try await app.nativeSignIn(
                "google", as: People.alice, authorizedParty: "other-android.apps.googleusercontent.com")
            #expect(wrongAzp.status == 401)
            #expect(wrongAzp.error == "id_token_invalid")
            let wrongAud = try await app.nativeSignIn("google", as: People.alice, audience: NativeApp.androidClient)
            #expect(wrongAud.status == 401)
            #expect(wrongAud.error == "id_token_invalid")
            // A token the web client got for itself (azp = aud = the server's client id).
            let web = try await app.nativeSignIn(
                "google", as: People.alice, authorizedParty: TestDeployment.clientIDs["google"]!)
            #expect(web.status == 401)
            #expect(web.error == "id_token_invalid")
            #expect(try await app.stores.accounts.identity(IdentityKey(provider: "google", subject: "alice-1")) == nil)
        }
    }

    @Test func facebookLimitedLoginTokenSignsIn() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            // Limited Login compares the raw nonce: the app passes it unhashed.
            let answer = try await app.nativeSignIn("facebook", as: People.carol, hashNonce: false)
            #expect(answer.status == 200, "\(answer.response.text)")
            #expect(answer["provider"] == "facebook")
            #expect(answer["subject"] == "carol-3")
            #expect(answer["name"] == "Carol Third")
            #expect(app.sandbox.requestCounts(for: .facebook).token == 0)
        }
    }

    @Test func appleRefusesAWebAudienceTokenWhereOnlyNativeIsConfigured() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let answer = try await app.nativeSignIn(
                "apple", as: People.alice, audience: TestDeployment.clientIDs["apple"]!, sendCode: false)
            #expect(answer.status == 401)
            #expect(answer.error == "id_token_invalid")
            #expect(answer["message"]?.contains("aud") == true)
        }
    }

    @Test func refusesAForgedSignatureAndAnotherKeysKid() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let nonce = try await app.nativeNonce("apple")
            let credential = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(nonce))
            // The payload swapped for Bob's under Alice's signature.
            var parts = credential.idToken.split(separator: ".").map(String.init)
            let payload = try JSONValue.parse(try Base64URL.decode(parts[1]))
            var claims = try #require(payload.objectValue)
            claims["sub"] = .string("bob-2")
            parts[1] = Base64URL.encode(Array(JSONValue.object(claims).serialized().utf8))
            let forged = try await app.nativeSignIn(
                "apple", ["id_token": .string(parts.joined(separator: ".")), "nonce": .string(nonce)])
            #expect(forged.status == 401)
            #expect(forged.error == "id_token_invalid")
            // The same claims signed by a key the provider never published, under its own kid.
            let stranger = try JWK.generateRSA(bits: 2048, keyID: "stranger")
            let foreign = try JWS.sign(payload: Array(payload.serialized().utf8), key: stranger, algorithm: .rs256)
            let unknownKey = try await app.nativeSignIn(
                "apple", ["id_token": .string(foreign), "nonce": .string(nonce)])
            #expect(unknownKey.status == 401)
            #expect(unknownKey.error == "id_token_invalid")
            // Neither spent the nonce: the genuine token still signs in.
            let genuine = try await app.nativeSignIn(
                "apple", ["id_token": .string(credential.idToken), "nonce": .string(nonce)])
            #expect(genuine.status == 200)
            #expect(genuine["subject"] == "alice-1")
        }
    }

    @Test func refusesAnExpiredToken() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            // Apple's tokens live 10 minutes; the app's clock is 700 s ahead, its nonce issued then.
            let credential = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: "unused")
            app.clock.advance(by: 700)
            let nonce = try await app.nativeNonce("apple")
            let answer = try await app.nativeSignIn(
                "apple", ["id_token": .string(credential.idToken), "nonce": .string(nonce)])
            #expect(answer.status == 401)
            #expect(answer.error == "id_token_invalid")
            #expect(answer["message"]?.contains("'exp'") == true, "\(answer.response.text)")
        }
    }

    @Test func refusesATokenWithoutANonceAndABodyWithoutOne() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let nonce = try await app.nativeNonce("apple")
            let credential = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: nil)
            let missing = try await app.nativeSignIn(
                "apple", ["id_token": .string(credential.idToken), "nonce": .string(nonce)])
            #expect(missing.status == 401)
            #expect(missing.error == "nonce_mismatch")
            let noNonce = try await app.nativeSignIn("apple", ["id_token": .string(credential.idToken)])
            #expect(noNonce.status == 400)
            #expect(noNonce.error == "invalid_request")
            #expect(noNonce["message"]?.contains("nonce") == true)
        }
    }

    @Test func aNonceAndItsTokenAreAcceptedOnce() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let nonce = try await app.nativeNonce("apple")
            let credential = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(nonce))
            let body: [String: JSONValue] = ["id_token": .string(credential.idToken), "nonce": .string(nonce)]
            #expect(try await app.nativeSignIn("apple", body).status == 200)
            // The same token replayed, and another token minted for the same nonce.
            let replayed = try await app.nativeSignIn("apple", body)
            #expect(replayed.status == 409)
            #expect(replayed.error == "nonce_reused")
            let again = try await app.sandboxCredential(
                "apple", as: People.bob, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(nonce))
            let reused = try await app.nativeSignIn(
                "apple", ["id_token": .string(again.idToken), "nonce": .string(nonce)])
            #expect(reused.status == 409)
            #expect(reused.error == "nonce_reused")
        }
    }

    @Test func refusesAnExpiredNonceAndOneIssuedForAnotherProvider() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let stale = try await app.nativeNonce("apple")
            app.clock.advance(by: 601)
            let credential = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(stale))
            let expired = try await app.nativeSignIn(
                "apple", ["id_token": .string(credential.idToken), "nonce": .string(stale)])
            #expect(expired.status == 401)
            #expect(expired.error == "nonce_expired")

            let googleNonce = try await app.nativeNonce("google")
            let other = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(googleNonce))
            let mismatch = try await app.nativeSignIn(
                "apple", ["id_token": .string(other.idToken), "nonce": .string(googleNonce)])
            #expect(mismatch.status == 403)
            #expect(mismatch.error == "nonce_provider_mismatch")

            let forged = try await app.nativeSignIn(
                "apple", ["id_token": .string(other.idToken), "nonce": .string("made-up-by-the-app")])
            #expect(forged.status == 400)
            #expect(forged.error == "invalid_nonce")
        }
    }

    @Test func theTokenNonceIsTheIssuedNonceOrItsLowercaseHexSHA256() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            #expect(try await app.nativeSignIn("apple", as: People.alice, hashNonce: false).status == 200)
            #expect(try await app.nativeSignIn("apple", as: People.alice, hashNonce: true).status == 200)
            for variant in [
                { (nonce: String) in NativeApp.hashed(nonce).uppercased() }, { NativeApp.hashed($0 + "x") },
            ] {
                let nonce = try await app.nativeNonce("apple")
                let credential = try await app.sandboxCredential(
                    "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: variant(nonce))
                let answer = try await app.nativeSignIn(
                    "apple", ["id_token": .string(credential.idToken), "nonce": .string(nonce)])
                #expect(answer.status == 401)
                #expect(answer.error == "nonce_mismatch")
            }
        }
    }

    @Test func cookieAndBearerTogetherAreRefusedAndNeitherStandsInForTheOther() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let token = try #require(try await app.nativeSignIn("google", as: People.alice)["session_token"])
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.bob)
            let cookie = try #require(browser.cookie(app.sessionCookie, for: app.appURL))
            let both = try await app.getWithBearer(
                "/auth/session", token, headers: [("Cookie", "\(app.sessionCookie)=\(cookie)")])
            #expect(both.status == 400)
            #expect(both.error == "ambiguous_credentials")
            let bothCheck = try await app.getWithBearer(
                "/auth/check", token, headers: [("Cookie", "\(app.sessionCookie)=\(cookie)")])
            #expect(bothCheck.status == 400)
            // A cookie session's id is no bearer token, and a bearer token no cookie.
            #expect(try await app.getWithBearer("/auth/session", cookie).status == 401)
            let asCookie = TestBrowser()
            asCookie.setCookie(app.sessionCookie, token, for: app.appURL)
            #expect(try await app.session(asCookie).status == 401)
        }
    }

    @Test func logoutEndsTheBearerSessionWithoutAnOriginCheck() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let token = try #require(try await app.nativeSignIn("apple", as: People.alice)["session_token"])
            // An app sends no Origin; a bearer is no ambient credential, so no same-origin check applies.
            let logout = try await app.postJSON(
                app.appURL + "/auth/logout", nil,
                headers: [("Authorization", "Bearer \(token)"), ("Origin", "https://elsewhere.example")])
            #expect(logout.status == 204)
            #expect(logout.response.headers["Set-Cookie"] == nil)
            #expect(try await app.getWithBearer("/auth/session", token).status == 401)
            #expect(try await app.getWithBearer("/auth/check", token).status == 401)
        }
    }

    @Test func refreshRotatesTheBearerAndEndsTheOldOne() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let first = try await app.nativeSignIn("apple", as: People.alice)
            let old = try #require(first["session_token"])
            app.clock.advance(by: 3600)
            let refreshed = try await app.postJSON(
                app.appURL + "/auth/session/refresh", nil, headers: [("Authorization", "Bearer \(old)")])
            #expect(refreshed.status == 200, "\(refreshed.response.text)")
            let new = try #require(refreshed["session_token"])
            #expect(new != old)
            #expect(refreshed["user_id"] == first["user_id"])
            #expect(refreshed["expires_at"] != first["expires_at"])
            #expect(try await app.getWithBearer("/auth/session", new).status == 200)
            // A cookie session cannot refresh.
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.bob)
            let cookie = try await browser.post(app.appURL + "/auth/session/refresh", from: app.appURL)
            #expect(cookie.status == 401)
            #expect(errorCode(cookie) == "not_bearer_session")
        }
    }

    @Test func aRefreshChainEndsNinetyDaysAfterItsSignInByDefault() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            var token = try #require(try await app.nativeSignIn("google", as: People.alice)["session_token"])
            for _ in 0..<3 {
                app.clock.advance(by: 29 * 86_400)
                let refreshed = try await app.postJSON(
                    app.appURL + "/auth/session/refresh", nil, headers: [("Authorization", "Bearer \(token)")])
                #expect(refreshed.status == 200, "\(refreshed.response.text)")
                token = try #require(refreshed["session_token"])
            }
            // 87 days after the sign-in, the last refresh lives 3 days, not 30; then the app signs in again.
            app.clock.advance(by: 3 * 86_400)
            #expect(try await app.getWithBearer("/auth/session", token).status == 401)
            let late = try await app.postJSON(
                app.appURL + "/auth/session/refresh", nil, headers: [("Authorization", "Bearer \(token)")])
            #expect(late.status == 401)
        }
    }

    @Test(arguments: [false, true])
    func aRotatedTokenPresentedAgainEndsTheNewestTokenToo(onSQLite: Bool) async throws {
        let file = TemporarySQLiteFile("refresh-chains")
        defer { file.remove() }
        var settings = NativeApp.settings
        if onSQLite { settings.stores = { clock in try file.stores(clock: clock) } }
        // The newest token's check is cached for the whole test: the reuse must reach it there too.
        settings.sessionCacheLifetime = 600
        try await TestDeployment.with(settings) { app in
            for presentation in ["/auth/session", "/auth/session/refresh", "/auth/logout"] {
                let old = try #require(try await app.nativeSignIn("google", as: People.alice)["session_token"])
                let refreshed = try await app.postJSON(
                    app.appURL + "/auth/session/refresh", nil, headers: [("Authorization", "Bearer \(old)")])
                let new = try #require(refreshed["session_token"])
                #expect(try await app.getWithBearer("/auth/check", new).status == 202, "\(presentation)")
                let replay =
                    presentation == "/auth/session"
                    ? try await app.getWithBearer(presentation, old)
                    : try await app.postJSON(
                        app.appURL + presentation, nil, headers: [("Authorization", "Bearer \(old)")])
                #expect(replay.status == (presentation == "/auth/logout" ? 204 : 401), "\(presentation)")
                #expect(try await app.getWithBearer("/auth/check", new).status == 401, "\(presentation)")
                #expect(try await app.getWithBearer("/auth/session", new).status == 401, "\(presentation)")
            }
        }
    }

    @Test func aRefreshedChainListsOnlyItsNewestSession() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let old = try #require(try await app.nativeSignIn("google", as: People.alice)["session_token"])
            let refreshed = try await app.postJSON(
                app.appURL + "/auth/session/refresh", nil, headers: [("Authorization", "Bearer \(old)")])
            let new = try #require(refreshed["session_token"])
            let listed = try await app.getWithBearer("/auth/sessions", new)
            #expect(listed.status == 200)
            let items = try #require(try JSONValue.parse(listed.response.body)["sessions"]?.arrayValue)
            #expect(items.count == 1)
            #expect(items.first?["kind"]?.stringValue == "bearer")
            #expect(items.first?["current"]?.boolValue == true)
        }
    }

    @Test func anAppleConsentRevokedEndsTheBearerSession() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let token = try #require(try await app.nativeSignIn("apple", as: People.bob)["session_token"])
            let event = AppleNotificationEvent(
                kind: .consentRevoked, subject: "bob-2", clientID: NativeApp.bundleID, email: nil,
                isPrivateEmail: nil)
            var request = HTTPClientRequest(
                method: "POST", url: app.appURL + "/auth/apple/notifications",
                headers: ["Content-Type": "application/json"],
                body: try app.sandbox.appleNotificationBody(for: event).body)
            request.timeout = 60
            let notified = try await CurlHTTPClient().send(request)
            #expect(notified.status == 200, "\(notified.text)")
            #expect(try await app.getWithBearer("/auth/session", token).status == 401)
        }
    }

    @Test func googleRISCAndFacebookDeauthorizeEndBearerSessions() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let google = try #require(try await app.nativeSignIn("google", as: People.alice)["session_token"])
            let facebook = try #require(
                try await app.nativeSignIn("facebook", as: People.alice, hashNonce: false)["session_token"])
            let risc = try await CurlHTTPClient().send(
                .form(
                    url: app.sandbox.baseURL + "/_sandbox/google/risc",
                    fields: [
                        ("type", "sessions-revoked"), ("sub", "alice-1"),
                        ("client_id", TestDeployment.clientIDs["google"]!),
                        ("to", app.appURL + "/auth/google/events"),
                    ]))
            #expect(risc.status == 200, "\(risc.text)")
            #expect(try await app.getWithBearer("/auth/session", google).status == 401)
            #expect(try await app.getWithBearer("/auth/session", facebook).status == 200)
            let deauthorize = try await CurlHTTPClient().send(
                .form(
                    url: app.sandbox.baseURL + "/_sandbox/facebook/deauthorize",
                    fields: [
                        ("user_id", "alice-1"), ("client_id", NativeApp.facebookAppID),
                        ("to", app.appURL + "/auth/facebook/deauthorize"),
                    ]))
            #expect(deauthorize.status == 200, "\(deauthorize.text)")
            #expect(try await app.getWithBearer("/auth/session", facebook).status == 401)
        }
    }

    @Test func nonceAndSignInAreRateLimitedLikeStartsAndCallbacks() async throws {
        var settings = NativeApp.settings
        settings.rateLimits = RateLimitSettings(
            starts: .init(perMinute: 1, burst: 2), callbacks: .init(perMinute: 1, burst: 1))
        try await TestDeployment.with(settings) { app in
            _ = try await app.nativeNonce("google")
            let nonce = try await app.nativeNonce("google")
            let third = try await app.postJSON(app.appURL + "/auth/google/native/nonce", nil)
            #expect(third.status == 429)
            #expect(third.error == "rate_limited")
            #expect(third.response.headers["Retry-After"] != nil)
            let credential = try await app.sandboxCredential(
                "google", as: People.alice, audience: TestDeployment.clientIDs["google"]!,
                tokenNonce: NativeApp.hashed(nonce), authorizedParty: NativeApp.androidClient)
            let body: [String: JSONValue] = ["id_token": .string(credential.idToken), "nonce": .string(nonce)]
            #expect(try await app.nativeSignIn("google", body).status == 200)
            let limited = try await app.nativeSignIn("google", body)
            #expect(limited.status == 429)
        }
    }

    @Test func aBearerSessionEndsAtNativeSessionTTL() async throws {
        var settings = NativeApp.settings
        settings.nativeSessionTTL = 3600
        try await TestDeployment.with(settings) { app in
            let answer = try await app.nativeSignIn("google", as: People.alice)
            let token = try #require(answer["session_token"])
            app.clock.advance(by: 3601)
            #expect(try await app.getWithBearer("/auth/session", token).status == 401)
        }
    }

    @Test func nativeRoutesAnswer404WithoutNativeClientsAndRefuseMalformedBodies() async throws {
        try await TestDeployment.with(NativeApp.settings) { app in
            let nonce = try await app.postJSON(app.appURL + "/auth/x/native/nonce", nil)
            #expect(nonce.status == 404)
            let signIn = try await app.nativeSignIn("x", ["id_token": "a.b.c", "nonce": "n"])
            #expect(signIn.status == 404)
            for body in ["[]", "{\"id_token\": 1, \"nonce\": \"n\"}", "not json", "{\"nonce\": \"n\"}"] {
                var request = HTTPClientRequest(method: "POST", url: app.appURL + "/auth/apple/native")
                request.headers["Content-Type"] = "application/json"
                request.body = Array(body.utf8)
                let answer = try await CurlHTTPClient().send(request)
                #expect(answer.status == 400, "\(body)")
                #expect(errorCode(answer) == "invalid_request")
            }
            var large = HTTPClientRequest(method: "POST", url: app.appURL + "/auth/apple/native")
            large.body = Array(repeating: UInt8(ascii: " "), count: 17 * 1024)
            // The route's body limit (16 KiB) holds in the HTTP layer, before the body is read.
            let tooLarge = try await CurlHTTPClient().send(large)
            #expect(tooLarge.status == 413)
            #expect(errorCode(tooLarge) == "request_too_large")
        }
    }

    @Test func aNonceIssuedByOneInstanceIsAcceptedOnceByAnother() async throws {
        let file = TemporarySQLiteFile("native-instances")
        defer { file.remove() }
        var settings = NativeApp.settings
        settings.stores = { clock in try file.stores(clock: clock) }
        try await TestDeployment.with(settings) { app in
            // A second server over the same configuration and database file, opened apart (as a second
            // `authflow serve`): nonces are sealed with the shared secret and spent in the shared table.
            let other = try SignInServer(
                configuration: app.configuration, registry: .standard, stores: try file.stores(clock: app.clock),
                httpClient: CurlHTTPClient(), clock: app.clock)
            let issued = await other.handle(
                HTTPServerRequest(method: "POST", path: "/auth/apple/native/nonce", remoteAddress: "127.0.0.1"))
            #expect(issued.status == 200)
            let nonce = try #require(try JSONValue.parse(issued.body)["nonce"]?.stringValue)
            let credential = try await app.sandboxCredential(
                "apple", as: People.alice, audience: NativeApp.bundleID, tokenNonce: NativeApp.hashed(nonce))
            let body: [String: JSONValue] = ["id_token": .string(credential.idToken), "nonce": .string(nonce)]
            #expect(try await app.nativeSignIn("apple", body).status == 200)
            let replay = await other.handle(
                HTTPServerRequest(
                    method: "POST", path: "/auth/apple/native", headers: ["Content-Type": "application/json"],
                    body: Array(JSONValue.object(body).serialized().utf8), remoteAddress: "127.0.0.1"))
            #expect(replay.status == 409)
            #expect(try JSONValue.parse(replay.body)["error"]?.stringValue == "nonce_reused")
        }
    }
}
