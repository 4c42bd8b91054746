import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Google RISC security events")
struct GoogleRISCTests {
    static let key = IdentityKey(provider: "google", subject: "alice-1")
    static let clientID = "123.apps.googleusercontent.com"

    /// Asks the sandbox to send the RISC event `type` about Alice to the app.
    func send(_ app: TestDeployment, _ type: String, reason: String? = nil) async throws -> JSONValue {
        var fields = [
            ("type", type), ("sub", "alice-1"), ("client_id", Self.clientID),
            ("to", app.appURL + "/auth/google/events"),
        ]
        if let reason { fields.append(("reason", reason)) }
        let response = try await CurlHTTPClient().send(
            .form(url: app.sandbox.baseURL + "/_sandbox/google/risc", fields: fields))
        #expect(response.status == 200)
        return try JSONValue.parse(response.body)
    }

    func post(_ app: TestDeployment, _ token: String) async throws -> HTTPClientResponse {
        try await CurlHTTPClient().send(
            HTTPClientRequest(
                method: "POST", url: app.appURL + "/auth/google/events",
                headers: ["Content-Type": "application/secevent+jwt"], body: Array(token.utf8)))
    }

    /// A SET signed with the sandbox Google key, with claims adjusted by `change`.
    func token(
        _ app: TestDeployment, type: String = "sessions-revoked", algorithm: JWSAlgorithm = .rs256,
        key: JWK? = nil, _ change: (inout [String: JSONValue]) -> Void = { _ in }
    ) throws -> String {
        let issuer = try #require(app.sandbox.issuer(for: .google))
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(Self.clientID),
            "iat": .integer(Int64(app.clock.now().timeIntervalSince1970)), "jti": .string(UUID().uuidString),
            "events": .object([
                try #require(SandboxIdentityProvider.riscEventType(type)): .object([
                    "subject": .object([
                        "subject_type": .string("iss-sub"), "iss": .string(issuer), "sub": .string("alice-1"),
                    ])
                ])
            ]),
        ]
        change(&claims)
        let signingKey = try #require(key ?? SharedKeys.signing[.google])
        return try JWS.sign(
            payload: Array(JSONValue.object(claims).serialized().utf8), key: signingKey, algorithm: algorithm)
    }

    func signedInAlice(_ app: TestDeployment) async throws -> TestBrowser {
        let browser = TestBrowser()
        try await app.signIn(browser, provider: "google", as: People.alice)
        #expect(try await app.session(browser).status == 200)
        return browser
    }

    @Test func theSandboxPublishesARISCConfigurationLikeGoogle() async throws {
        try await TestDeployment.with { app in
            let response = try await CurlHTTPClient().send(
                HTTPClientRequest(url: app.sandbox.baseURL + "/google/.well-known/risc-configuration"))
            let json = try JSONValue.parse(response.body)
            #expect(json["issuer"]?.stringValue == app.sandbox.issuer(for: .google))
            #expect(json["jwks_uri"]?.stringValue == app.sandbox.endpoints(for: .google).jwks)
        }
    }

    @Test func sessionsRevokedEndsTheGoogleSessionOnce() async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInAlice(app)
            let answer = try await send(app, "sessions-revoked")
            #expect(answer["status"] == .integer(202))
            #expect(try await app.session(browser).status == 401)
            // Tokens stay: only the sessions ended.
            #expect(try await app.stores.accounts.tokens(for: Self.key) != nil)
        }
    }

    @Test func aReplayedJTIIsAcknowledgedAndChangesNothing() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInAlice(app)
            let set = try token(app, type: "account-disabled") {
                $0["events"] = .object([
                    "https://schemas.openid.net/secevent/risc/event-type/account-enabled": .object([
                        "subject": .object(["subject_type": .string("iss-sub"), "sub": .string("alice-1")])
                    ])
                ])
            }
            #expect(try await post(app, set).status == 202)
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let disabled = try token(app, type: "account-disabled") {
                $0["events"] = .object([
                    "https://schemas.openid.net/secevent/risc/event-type/account-disabled": .object([
                        "subject": .object(["subject_type": .string("iss-sub"), "sub": .string("alice-1")]),
                        "reason": .string("hijacking"),
                    ])
                ])
            }
            #expect(try await post(app, disabled).status == 202)
            #expect(try await app.stores.accounts.identity(Self.key)?.isDisabled == true)
            // The earlier account-enabled SET replayed: same jti, nothing applied.
            #expect(try await post(app, set).status == 202)
            #expect(try await app.stores.accounts.identity(Self.key)?.isDisabled == true)
        }
    }

    @Test func tokensRevokedDeletesTokensAndEndsSessions() async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInAlice(app)
            #expect(try await app.stores.accounts.tokens(for: Self.key) != nil)
            #expect(try await send(app, "tokens-revoked")["status"] == .integer(202))
            #expect(try await app.stores.accounts.tokens(for: Self.key) == nil)
            #expect(try await app.session(browser).status == 401)
        }
    }

    @Test func hijackingRefusesGoogleSignInUntilAccountEnabled() async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInAlice(app)
            #expect(try await send(app, "account-disabled", reason: "hijacking")["status"] == .integer(202))
            #expect(try await app.session(browser).status == 401)
            let refused = try await app.signIn(TestBrowser(), provider: "google", as: People.alice)
            #expect(refused.status == 403)
            #expect(errorCode(refused) == "identity_disabled")

            #expect(try await send(app, "account-enabled")["status"] == .integer(202))
            let allowed = try await app.signIn(TestBrowser(), provider: "google", as: People.alice)
            #expect(allowed.status == 302)
        }
    }

    @Test func accountDisabledForAnotherReasonAndLogOnlyEventsChangeNothing() async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInAlice(app)
            #expect(try await send(app, "account-disabled", reason: "bulk-account")["status"] == .integer(202))
            #expect(try await send(app, "account-credential-change-required")["status"] == .integer(202))
            #expect(try await send(app, "verification")["status"] == .integer(202))
            #expect(try await app.session(browser).status == 200)
            #expect(try await app.stores.accounts.identity(Self.key)?.isDisabled == false)
        }
    }

    @Test func tokenRevokedDeletesTheMatchingRefreshTokenOnly() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInAlice(app)
            // Google sends a refresh token with access_type=offline; store one as that sign-in would have.
            let stored = "1//refresh-token-of-alice-0123456789"
            try await app.stores.accounts.saveTokens(
                StoredTokens(accessToken: "ya29.access", refreshToken: stored), for: Self.key)
            func revoked(_ identifier: String, _ algorithm: String) throws -> String {
                try token(app, type: "token-revoked") {
                    $0["events"] = .object([
                        "https://schemas.openid.net/secevent/oauth/event-type/token-revoked": .object([
                            "subject": .object([
                                "subject_type": .string("iss-sub"), "sub": .string("alice-1"),
                                "token_identifier_alg": .string(algorithm), "token": .string(identifier),
                            ])
                        ])
                    ])
                }
            }
            let other = Data(Digest.sha512(Digest.sha512(Array("another-token".utf8)))).base64EncodedString()
            #expect(try await post(app, revoked(other, "hash_base64_sha512_sha512")).status == 202)
            #expect(try await app.stores.accounts.tokens(for: Self.key) != nil)
            let hash = Data(Digest.sha512(Digest.sha512(Array(stored.utf8)))).base64EncodedString()
            #expect(try await post(app, revoked(hash, "hash_base64_sha512_sha512")).status == 202)
            #expect(try await app.stores.accounts.tokens(for: Self.key) == nil)
        }
    }

    /// A `token-revoked` SET as Google sends it: the token subject alone, without `iss-sub`.
    func tokenOnlyRevocation(
        _ app: TestDeployment, _ identifier: String, _ algorithm: String, signedBy key: JWK? = nil
    ) throws -> String {
        try token(app, type: "token-revoked", key: key) {
            $0["events"] = .object([
                "https://schemas.openid.net/secevent/oauth/event-type/token-revoked": .object([
                    "subject": .object([
                        "subject_type": .string("oauth_token"), "token_type": .string("refresh_token"),
                        "token_identifier_alg": .string(algorithm), "token": .string(identifier),
                    ])
                ])
            ])
        }
    }

    /// How a `token-revoked` subject names `token` by `algorithm`.
    static func identifier(of token: String, _ algorithm: String) -> String {
        algorithm == "prefix"
            ? String(token.prefix(16)) : Data(Digest.sha512(Digest.sha512(Array(token.utf8)))).base64EncodedString()
    }

    @Test(arguments: ["hash_base64_sha512_sha512", "prefix"])
    func tokenRevokedNamingOnlyTheTokenFindsAndDeletesTheStoredTokens(_ algorithm: String) async throws {
        try await TestDeployment.with { app in
            _ = try await signedInAlice(app)
            let stored = "1//0gAliceRefreshToken-0123456789abcdef"
            try await app.stores.accounts.saveTokens(
                StoredTokens(accessToken: "ya29.access", refreshToken: stored), for: Self.key)

            // A token the store does not hold: acknowledged, nothing changes.
            let unknown = Self.identifier(of: "1//0gSomeoneElsesToken-fedcba9876543210", algorithm)
            #expect(try await post(app, tokenOnlyRevocation(app, unknown, algorithm)).status == 202)
            #expect(try await app.stores.accounts.tokens(for: Self.key)?.refreshToken == stored)

            let named = Self.identifier(of: stored, algorithm)
            #expect(try await post(app, tokenOnlyRevocation(app, named, algorithm)).status == 202)
            #expect(try await app.stores.accounts.tokens(for: Self.key) == nil)
            #expect(try await app.stores.accounts.identity(Self.key) != nil)
        }
    }

    @Test func aForgedTokenRevokedIsRefusedAndTheTokensRemain() async throws {
        try await TestDeployment.with { app in
            _ = try await signedInAlice(app)
            let stored = "1//0gAliceRefreshToken-0123456789abcdef"
            try await app.stores.accounts.saveTokens(
                StoredTokens(accessToken: "ya29.access", refreshToken: stored), for: Self.key)
            let named = Self.identifier(of: stored, "hash_base64_sha512_sha512")
            let forged = try tokenOnlyRevocation(
                app, named, "hash_base64_sha512_sha512", signedBy: try JWK.generateRSA(bits: 2048, keyID: "test-google")
            )
            #expect(try await post(app, forged).status == 400)
            var parts = try tokenOnlyRevocation(app, named, "hash_base64_sha512_sha512").split(separator: ".").map(
                String.init)
            parts[2] = String(parts[2].reversed())
            #expect(try await post(app, parts.joined(separator: ".")).status == 400)
            #expect(try await app.stores.accounts.tokens(for: Self.key)?.refreshToken == stored)
        }
    }

    @Test(arguments: ["signature", "aud", "iss", "hs256", "foreign-key", "no-jti", "no-events", "not-a-jws"])
    func forgedEventsAreRefusedWithNothingApplied(_ forgery: String) async throws {
        try await TestDeployment.with { app in
            let browser = try await signedInAlice(app)
            let set: String
            switch forgery {
            case "signature":
                let parts = try token(app).split(separator: ".").map(String.init)
                let payload = Base64URL.encode(
                    Array(
                        String(decoding: try Base64URL.decode(parts[1]), as: UTF8.self)
                            .replacingOccurrences(of: "alice-1", with: "alice-9").utf8))
                set = [parts[0], payload, parts[2]].joined(separator: ".")
            case "aud": set = try token(app) { $0["aud"] = .string("someone-else.apps.googleusercontent.com") }
            case "iss": set = try token(app) { $0["iss"] = .string("https://accounts.example.com/") }
            case "hs256":
                set = try token(
                    app, algorithm: .hs256,
                    key: try JWK(
                        json: .object([
                            "kty": .string("oct"), "k": .string(Base64URL.encode(Array(repeating: 7, count: 32))),
                        ])))
            case "foreign-key": set = try token(app, key: try JWK.generateRSA(bits: 2048, keyID: "test-google"))
            case "no-jti": set = try token(app) { $0["jti"] = nil }
            case "no-events": set = try token(app) { $0["events"] = nil }
            default: set = "not.a.jws"
            }
            let response = try await post(app, set)
            #expect(response.status == 400, "\(forgery)")
            let json = try? JSONValue.parse(response.body)
            #expect(json?["err"]?.stringValue?.isEmpty == false)
            #expect(json?["description"]?.stringValue?.isEmpty == false)
            #expect(try await app.session(browser).status == 200)
        }
    }
}
