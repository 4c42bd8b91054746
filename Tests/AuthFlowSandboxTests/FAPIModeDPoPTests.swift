import AuthFlow
import AuthFlowCurl
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Synchronization
import Testing

/// An HTTP client that passes requests to the real one and lets a test alter a request before it goes or an
/// answer before the driver sees it (a misbehaving server, a replayed proof).
struct AlteringClient: HTTPClient {
    let base: any HTTPClient
    var request: @Sendable (HTTPClientRequest) -> HTTPClientRequest = { $0 }
    var response: @Sendable (HTTPClientRequest, HTTPClientResponse) -> HTTPClientResponse = { $1 }

    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        let altered = self.request(request)
        return response(altered, try await base.send(altered))
    }
}

/// DPoP (RFC 9449) against the sandbox's FAPI 2.0 mode, which requires proofs with server nonces: the sign-in,
/// refresh and revocation prove possession of the grant's key; a nonce challenge is answered once and not twice;
/// `token_type: Bearer` after a proof, a replayed or stale proof and a foreign key are typed errors.
extension FAPIModeTests {
    static let offline = "    authorization_params: { access_type: offline, prompt: consent }"

    /// Signs in through `stand` and returns the result.
    func signIn(_ stand: Stand) async throws -> SignInResult {
        let start = try await stand.signIn.begin(
            provider: "bank", returnTo: "/", browserBinding: stand.signIn.newBrowserBinding())
        let reply = try await browse(start.redirectURL)
        return try await stand.signIn.complete(
            provider: "bank", method: .get, parameters: CallbackParameters(callbackPairs(reply.location)),
            flowRecord: start.record)
    }

    func operations(_ stand: Stand, client: (any HTTPClient)? = nil) throws -> TokenOperations {
        TokenOperations(providers: [try #require(stand.signIn.providers["bank"])], httpClient: client ?? Self.client)
    }

    @Test func refreshAndRevocationProvePossessionAndANonceChallengeIsAnsweredOnce() async throws {
        try await withStand(configuredKey: try JWK.generateP256(), extra: Self.offline) { stand in
            let result = try await signIn(stand)
            let key = try #require(result.tokens.dpopKey)
            let refreshToken = try #require(result.tokens.refreshToken)
            // A fresh instance (as after a restart) with the stored key: one challenge, one retry, then success.
            let tokens = try operations(stand)
            let before = stand.sandbox.requestCounts(for: .google).token
            let refreshed = try await tokens.refresh(provider: "bank", refreshToken: refreshToken, dpopKey: key)
            #expect(refreshed.tokens.tokenType == "DPoP")
            #expect(stand.sandbox.requestCounts(for: .google).token == before + 2)
            // The nonce is remembered: the next refresh needs no retry.
            _ = try await tokens.refresh(provider: "bank", refreshToken: refreshToken, dpopKey: key)
            #expect(stand.sandbox.requestCounts(for: .google).token == before + 3)

            // Another key, or none, does not prove possession.
            await #expect {
                _ = try await tokens.refresh(
                    provider: "bank", refreshToken: refreshToken, dpopKey: try JWK.generateP256())
            } throws: { error in
                (error as? SignInError)?.providerError == "invalid_dpop_proof"
            }
            await #expect {
                _ = try await tokens.refresh(provider: "bank", refreshToken: refreshToken)
            } throws: { error in
                (error as? SignInError)?.providerError == "invalid_dpop_proof"
            }
            try await tokens.revoke(provider: "bank", token: refreshToken, tokenTypeHint: .refreshToken, dpopKey: key)
        }
    }

    @Test func aSecondNonceChallengeIsATypedErrorAfterExactlyOneRetry() async throws {
        let stale: (inout SandboxConfiguration) -> Void = { $0.dpopNonceAlwaysStale = true }
        try await withStand(configuredKey: try JWK.generateP256(), sandboxSettings: stale) { stand in
            await #expect {
                _ = try await signIn(stand)
            } throws: { error in
                guard let error = error as? SignInError else { return false }
                return error.code == .tokenEndpointError && error.providerError == "use_dpop_nonce"
                    && error.upstreamStatus == 400
            }
            #expect(stand.sandbox.requestCounts(for: .google).token == 2)
        }
    }

    @Test func aBearerTokenTypeAfterAProofIsRefused() async throws {
        let downgrading = AlteringClient(
            base: Self.client,
            response: { request, response in
                guard request.url.hasSuffix("/token"), response.status == 200 else { return response }
                let text = String(decoding: response.body, as: UTF8.self)
                    .replacingOccurrences(of: "\"DPoP\"", with: "\"Bearer\"")
                return HTTPClientResponse(status: 200, headers: response.headers, body: Array(text.utf8))
            })
        try await withStand(configuredKey: try JWK.generateP256(), httpClient: downgrading) { stand in
            await #expect {
                _ = try await signIn(stand)
            } throws: { error in
                guard let error = error as? SignInError else { return false }
                return error.code == .invalidTokenResponse && error.message.contains("expected token_type DPoP")
            }
        }
    }

    @Test func aReplayedOrStaleProofIsRefusedAsATypedError() async throws {
        try await withStand(configuredKey: try JWK.generateP256(), extra: Self.offline) { stand in
            let result = try await signIn(stand)
            let key = try #require(result.tokens.dpopKey)
            let refreshToken = try #require(result.tokens.refreshToken)
            // The proof of the last accepted request is kept; once `replay` is set, it is sent in place of each new one.
            let accepted = Mutex<String?>(nil)
            let replay = Mutex(false)
            let replaying = AlteringClient(
                base: Self.client,
                request: { request in
                    var request = request
                    if replay.withLock({ $0 }), let proof = accepted.withLock({ $0 }) {
                        request.headers["DPoP"] = proof
                    }
                    return request
                },
                response: { request, response in
                    if response.status == 200, let proof = request.headers["DPoP"] { accepted.withLock { $0 = proof } }
                    return response
                })
            let tokens = try operations(stand, client: replaying)
            _ = try await tokens.refresh(provider: "bank", refreshToken: refreshToken, dpopKey: key)
            replay.withLock { $0 = true }
            // Same nonce, iat still in the window: only the spent jti refuses it, and no retry follows.
            let before = stand.sandbox.requestCounts(for: .google).token
            await #expect {
                _ = try await tokens.refresh(provider: "bank", refreshToken: refreshToken, dpopKey: key)
            } throws: { error in
                guard let error = error as? SignInError else { return false }
                return error.code == .tokenEndpointError && error.providerError == "invalid_dpop_proof"
            }
            #expect(stand.sandbox.requestCounts(for: .google).token == before + 1)
            let honest = try operations(stand)

            // Stale: the sandbox's clock is past the proof's iat window.
            stand.clock.advance(by: 300)
            await #expect {
                _ = try await honest.refresh(provider: "bank", refreshToken: refreshToken, dpopKey: key)
            } throws: { error in
                guard let error = error as? SignInError else { return false }
                return error.code == .tokenEndpointError && error.providerError == "invalid_dpop_proof"
            }
        }
    }

    @Test func theCodeIsBoundToTheKeyNamedAtThePushedRequest() async throws {
        try await withStand(configuredKey: try JWK.generateP256()) { stand in
            let start = try await stand.signIn.begin(
                provider: "bank", returnTo: "/", browserBinding: stand.signIn.newBrowserBinding())
            let reply = try await browse(start.redirectURL)
            var record = start.record
            record.dpopKey = try JWK.generateP256()
            await #expect {
                _ = try await stand.signIn.complete(
                    provider: "bank", method: .get, parameters: CallbackParameters(callbackPairs(reply.location)),
                    flowRecord: record)
            } throws: { error in
                (error as? SignInError)?.providerError == "invalid_dpop_proof"
            }
        }
    }
}

extension FAPIModeTests {
    /// The grant's key is sealed with the tokens in a SQLite file; after a "restart" (the file opened again, the
    /// providers resolved again, new token operations) the refresh proves possession with the same key.
    @Test func aRefreshAfterARestartProvesPossessionWithTheStoredKey() async throws {
        try await withStand(configuredKey: try JWK.generateP256(), extra: Self.offline) { stand in
            let result = try await signIn(stand)
            let identity = IdentityKey(provider: "bank", subject: result.identity.subject)
            let path = stand.directory + "/accounts.sqlite"
            let secret = "0123456789abcdef0123456789abcdef0123"
            do {
                let stores = SQLiteStores(
                    database: try SQLiteDatabase(path: path),
                    cipher: try TokenCipher(secret: secret, random: SystemRandom()),
                    clock: SystemClock())
                _ = try await stores.accounts.createUser(
                    UserID(rawValue: "u-1"), identity: identity, profile: IdentityProfile())
                var tokens = StoredTokens(result.tokens, receivedAt: Date(timeIntervalSince1970: 0))
                tokens.accessTokenExpiresAt = Date(timeIntervalSince1970: 0)  // expired: the next use refreshes
                try await stores.accounts.saveTokens(tokens, for: identity)
            }
            // The restart: nothing of the first instance but the file.
            let stores = SQLiteStores(
                database: try SQLiteDatabase(path: path),
                cipher: try TokenCipher(secret: secret, random: SystemRandom()),
                clock: SystemClock())
            let issuer = try #require(stand.sandbox.issuer(for: .google))
            let loaded = try Self.configuration(
                issuer: issuer, keyFile: stand.directory + "/client.pem", par: "required", extra: Self.offline)
            let providers = try await ProviderRegistry.standard.resolve(loaded, httpClient: Self.client)
            let refresher = TokenRefresher(
                accounts: stores.accounts, operations: TokenOperations(providers: providers, httpClient: Self.client))
            let refreshed = try await refresher.accessToken(for: identity)
            #expect(refreshed.accessToken != result.tokens.accessToken)
            #expect(refreshed.dpopKey?.thumbprint() == result.tokens.dpopKey?.thumbprint())
            #expect(stand.sandbox.requestCounts(for: .google).refreshGrants == 1)
        }
    }
}
