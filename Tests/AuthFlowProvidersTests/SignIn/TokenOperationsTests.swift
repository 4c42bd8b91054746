import AuthFlow
import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Synchronization
import Testing

/// Refresh and revocation against the sandbox, authenticated exactly as at sign-in.
@Suite("Token refresh and revocation end to end", .serialized) struct TokenOperationsTests {
    @Test func refreshesAppleTokensWithoutANewRefreshToken() async throws {
        try await World.run { world in
            let result = try await world.signIn("apple").result
            let refreshToken = try #require(result.tokens.refreshToken)
            let secrets = Mutex<[String]>([])
            world.interposer.onRequest { request in
                if request.path == "/apple/auth/token",
                    let secret = request.form.first(where: { $0.0 == "client_secret" })
                {
                    secrets.withLock { $0.append(secret.1) }
                }
            }
            world.clock.advance(by: 60)
            world.sandboxClock.advance(by: 60)
            let refreshed = try await world.tokens.refresh(
                provider: "apple", refreshToken: refreshToken, subject: result.identity.subject)
            #expect(!refreshed.rotated)
            #expect(refreshed.refreshToken == refreshToken)
            #expect(refreshed.tokens.refreshToken == nil)
            #expect(refreshed.tokens.accessToken != result.tokens.accessToken)
            #expect(refreshed.idTokenClaims?.subject == result.identity.subject)
            // A fresh ES256 client secret, minted for this request.
            let secret = try #require(secrets.withLock { $0.first })
            #expect(try JWSVerifier.header(of: secret).algorithm == "ES256")
            #expect(
                try TokenTampering.claims(of: secret)["iat"]?.int64Value
                    == Int64(world.clock.now().timeIntervalSince1970))
            // The old refresh token keeps working.
            _ = try await world.tokens.refresh(provider: "apple", refreshToken: refreshToken)
        }
    }

    @Test func refusesARefreshedAppleIDTokenForAnotherSubject() async throws {
        try await World.run { world in
            let result = try await world.signIn("apple").result
            let key = try E2E.signingKey(.apple)
            world.interposer.onResponse { path, response in
                guard path == "/apple/auth/token" else { return }
                TokenTampering.rewritingIDToken(&response) {
                    try TokenTampering.resigned($0, key: key) { $0["sub"] = "000999.someone-else.0001" }
                }
            }
            let refreshToken = try #require(result.tokens.refreshToken)
            do throws(SignInError) {
                _ = try await world.tokens.refresh(
                    provider: "apple", refreshToken: refreshToken, subject: result.identity.subject)
                Issue.record("expected id_token_invalid")
            } catch {
                #expect(error.code == .idTokenInvalid)
                #expect(error.claim == "sub")
            }
        }
    }

    @Test func revokesAppleTokensAndAnswers200WhateverTheToken() async throws {
        try await World.run { world in
            let result = try await world.signIn("apple").result
            let refreshToken = try #require(result.tokens.refreshToken)
            let secrets = Mutex<[String]>([])
            world.interposer.onRequest { request in
                if request.path == "/apple/auth/revoke",
                    let secret = request.form.first(where: { $0.0 == "client_secret" })
                {
                    secrets.withLock { $0.append(secret.1) }
                }
            }
            world.clock.advance(by: 120)
            world.sandboxClock.advance(by: 120)
            try await world.tokens.revoke(provider: "apple", token: refreshToken, tokenTypeHint: .refreshToken)
            // Authenticated with an ES256 client secret minted for this very request.
            let secret = try #require(secrets.withLock { $0.first })
            #expect(try JWSVerifier.header(of: secret).algorithm == "ES256")
            #expect(
                try TokenTampering.claims(of: secret)["iat"]?.int64Value
                    == Int64(world.clock.now().timeIntervalSince1970))
            let revocation = try #require(world.sandbox.revocations(for: .apple).last)
            #expect(revocation.kind == .refreshToken)
            #expect(revocation.clientID == E2E.appleClientID)
            #expect(revocation.tokenTypeHint == "refresh_token")
            do throws(SignInError) {
                _ = try await world.tokens.refresh(provider: "apple", refreshToken: refreshToken)
                Issue.record("expected invalid_grant")
            } catch {
                #expect(error.code == .tokenEndpointError)
                #expect(error.providerError == "invalid_grant")
            }
            // Apple answers 200 for a token it never issued.
            try await world.tokens.revoke(provider: "apple", token: "r.never-issued", tokenTypeHint: .refreshToken)
            #expect(world.sandbox.revocations(for: .apple).last?.kind == .unknown)
            // Revoking the refresh token withdrew the consent: the next sign-in sends the name again.
            #expect(try await world.signIn("apple").result.unverifiedProfile != nil)
        }
    }

    @Test func rotatesXRefreshTokensAndRefusesReuse() async throws {
        try await World.run { world in
            let result = try await world.signIn("x").result
            let first = try #require(result.tokens.refreshToken)
            let second = try await world.tokens.refresh(provider: "x", refreshToken: first)
            #expect(second.rotated)
            #expect(second.refreshToken != first)
            #expect(second.refreshToken == second.tokens.refreshToken)
            let third = try await world.tokens.refresh(provider: "x", refreshToken: second.refreshToken)
            #expect(third.rotated)
            // Reusing a consumed refresh token is refused, and X then revokes the whole grant.
            do throws(SignInError) {
                _ = try await world.tokens.refresh(provider: "x", refreshToken: first)
                Issue.record("expected invalid_grant")
            } catch {
                #expect(error.code == .tokenEndpointError)
                #expect(error.providerError == "invalid_grant")
            }
            do throws(SignInError) {
                _ = try await world.tokens.refresh(provider: "x", refreshToken: third.refreshToken)
                Issue.record("expected invalid_grant")
            } catch {
                #expect(error.providerError == "invalid_grant")
            }
        }
    }

    @Test func revokesAnXTokenWithBasicAuthentication() async throws {
        try await World.run { world in
            let result = try await world.signIn("x").result
            let headers = Mutex<[String]>([])
            world.interposer.onRequest { request in
                if request.path == "/x/2/oauth2/revoke" {
                    let value = request.headers["Authorization"] ?? "none"
                    headers.withLock { $0.append(value) }
                }
            }
            try await world.tokens.revoke(provider: "x", token: result.tokens.accessToken, tokenTypeHint: .accessToken)
            #expect(headers.withLock { $0 }.count == 1)
            #expect(headers.withLock { $0 }.allSatisfy { $0.hasPrefix("Basic ") })
            let revocation = try #require(world.sandbox.revocations(for: .x).last)
            #expect(revocation.kind == .accessToken)
            #expect(revocation.clientID == E2E.xClientID)
            // The revoked access token no longer opens /2/users/me.
            var request = HTTPClientRequest(url: world.urls.sandbox + "/x/2/users/me")
            request.setBearer(result.tokens.accessToken)
            #expect(try await E2E.client.send(request).status == 401)
        }
    }

    /// Google issues a refresh token only for `access_type=offline`; `authorization_params` is how a
    /// configuration asks for it, and the refresh then works without rotating.
    @Test func getsAGoogleRefreshTokenOnlyWithAccessTypeOfflineConfigured() async throws {
        try await World.run { world in
            let result = try await world.signIn("google").result
            #expect(result.tokens.refreshToken == nil)
        }
        var options = World.Options()
        options.googleAuthorizationParams = ["access_type": "offline", "prompt": "consent"]
        try await World.run(options) { world in
            let result = try await world.signIn("google").result
            let refreshToken = try #require(result.tokens.refreshToken)
            let refreshed = try await world.tokens.refresh(
                provider: "google", refreshToken: refreshToken, subject: result.identity.subject)
            #expect(!refreshed.rotated)
            #expect(refreshed.refreshToken == refreshToken)
            #expect(refreshed.tokens.accessToken != result.tokens.accessToken)
            #expect(refreshed.idTokenClaims?.subject == result.identity.subject)
        }
    }

    @Test func revokesGoogleTokensAndReportsAnUnknownOne() async throws {
        try await World.run { world in
            let result = try await world.signIn("google").result
            try await world.tokens.revoke(
                provider: "google", token: result.tokens.accessToken, tokenTypeHint: .accessToken)
            #expect(world.sandbox.revocations(for: .google).last?.kind == .accessToken)
            do throws(SignInError) {
                try await world.tokens.revoke(provider: "google", token: result.tokens.accessToken)
                Issue.record("expected revocation_failed")
            } catch {
                #expect(error.code == .revocationFailed)
                #expect(error.providerError == "invalid_token")
                #expect(error.upstreamStatus == 400)
            }
        }
    }

    /// Facebook has no refresh tokens: the sign-in's short-lived token is traded for one of about 60 days,
    /// which is itself live at the sandbox (it can be traded again); a dead token is refused.
    @Test func tradesAFacebookTokenForALongLivedOne() async throws {
        try await World.run { world in
            let result = try await world.signIn("facebook").result
            let longLived = try await world.tokens.exchangeForLongLivedToken(
                provider: "facebook", accessToken: result.tokens.accessToken)
            #expect(longLived.expiresIn == 5_183_944)
            #expect(longLived.accessToken != result.tokens.accessToken)
            #expect(longLived.refreshToken == nil)
            let again = try await world.tokens.exchangeForLongLivedToken(
                provider: "facebook", accessToken: longLived.accessToken)
            #expect(again.accessToken != longLived.accessToken)
            do throws(SignInError) {
                _ = try await world.tokens.exchangeForLongLivedToken(provider: "facebook", accessToken: "EAAforged")
                Issue.record("expected token_endpoint_error")
            } catch {
                #expect(error.code == .tokenEndpointError)
                #expect(error.providerError == "OAuthException")
                #expect(error.upstreamStatus == 400)
                #expect(!error.message.contains("EAAforged"))
            }
            do throws(SignInError) {
                _ = try await world.tokens.exchangeForLongLivedToken(
                    provider: "google", accessToken: result.tokens.accessToken)
                Issue.record("expected long_lived_token_unsupported")
            } catch {
                #expect(error.code == .longLivedTokenUnsupported)
            }
        }
    }

    @Test func refusesOperationsAProviderDoesNotOffer() async throws {
        try await World.run { world in
            do throws(SignInError) {
                try await world.tokens.revoke(provider: "facebook", token: "EAAsomething")
                Issue.record("expected revocation_unsupported")
            } catch {
                #expect(error.code == .revocationUnsupported)
            }
            do throws(SignInError) {
                _ = try await world.tokens.refresh(provider: "facebook", refreshToken: "anything")
                Issue.record("expected refresh_unsupported")
            } catch {
                #expect(error.code == .refreshUnsupported)
            }
            do throws(SignInError) {
                _ = try await world.tokens.refresh(provider: "nope", refreshToken: "anything")
                Issue.record("expected unknown_provider")
            } catch {
                #expect(error.code == .unknownProvider)
            }
            #expect(world.sandbox.requestCounts(for: .facebook).total == 0)
        }
    }
}
