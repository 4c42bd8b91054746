import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlow

/// `client_auth`: the RFC 7523 assertion, its placement in every request, Basic encoding, and resolution.
@Suite struct ClientAuthenticationTests {
    /// A provider that lets configuration choose among ours, `client_secret_post` by default.
    struct ChoosingPlugin: ProviderPlugin, TokenEndpointStrategy {
        /// A pushed authorization request endpoint (RFC 9126), none by default.
        var pushedAuthorizationEndpoint: String?
        var requiresSignedRequestObject = false

        var about: ProviderDescription {
            var description = ProviderDescription(
                type: "choosing",
                endpoints: ProviderEndpoints(
                    authorization: "https://c.test/a", token: "https://c.test/token", userinfo: "https://c.test/u",
                    revocation: "https://c.test/revoke"))
            description.endpoints.pushedAuthorizationRequest = pushedAuthorizationEndpoint
            description.requiresSignedRequestObject = requiresSignedRequestObject
            return description
        }
        func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
            .optional(default: false)
        }
        var tokenEndpoint: any TokenEndpointStrategy { self }
        func method(capabilities: Set<Capability>) -> ClientAuthentication { .clientSecretPost }
        func choice(for settings: ProviderSettings, capabilities: Set<Capability>) -> ClientAuthenticationChoice? {
            .advertised(nil, preferred: .clientSecretPost)
        }
    }

    /// A provider with one method (like Apple or X).
    struct FixedPlugin: ProviderPlugin {
        var about: ProviderDescription {
            ProviderDescription(
                type: "fixed", displayName: "Fixed",
                endpoints: ProviderEndpoints(
                    authorization: "https://f.test/a", token: "https://f.test/t", userinfo: "https://f.test/u"))
        }
        func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
            .optional(default: false)
        }
        var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }
    }

    /// Counts up from zero, so every `jti` differs and is known.
    final class CountingRandom: SecureRandom, @unchecked Sendable {
        private var next: UInt8 = 0
        func bytes(_ count: Int) -> [UInt8] {
            next &+= 1
            return [UInt8](repeating: next, count: count)
        }
    }

    let now = Date(timeIntervalSince1970: 1_750_000_000)
    static let at = SourceLocation(fileName: "providers.yaml", line: 3, column: 5, sourceLine: nil)

    func settings(
        type: String = "choosing", method: ClientAuthentication?, secret: String? = "sec", key: String? = nil,
        keyID: String? = nil
    ) -> ProviderSettings {
        ProviderSettings(
            name: "c", type: type, clientID: "cid", clientSecret: secret.map(Secret.init), keyID: keyID,
            privateKey: key.map(Secret.init), location: Self.at,
            keyLocations: ["client_auth": Self.at, "private_key_file": Self.at], clientAuthentication: method)
    }

    func resolve(_ settings: ProviderSettings) throws(ConfigurationError) -> ResolvedProvider {
        try ProviderRegistry([ChoosingPlugin(), FixedPlugin()]).resolve(settings, publicURL: "https://app.test")
    }

    func verifiedClaims(_ assertion: String, key: JWK, algorithm: JWSAlgorithm) throws -> [String: JSONValue] {
        let verified = try JWSVerifier(allowedAlgorithms: [algorithm]).verify(
            assertion, keys: JWKSet(keys: [key.publicKey]))
        #expect(verified.header.algorithm == algorithm.rawValue)
        #expect(verified.header.type == "JWT")
        return try #require(try JSONValue.parse(verified.payload).objectValue)
    }

    @Test func assertionCarriesTheRFC7523ClaimsSignedES256OrRS256() throws {
        for (key, algorithm) in [
            (try JWK.generateP256(keyID: "k1"), JWSAlgorithm.es256), (try JWK.generateRSA(), .rs256),
        ] {
            let assertion = try ClientAssertion.make(
                clientID: "cid", audience: "https://c.test/token", privateKey: key, issuedAt: now,
                random: CountingRandom())
            let claims = try verifiedClaims(assertion, key: key, algorithm: algorithm)
            #expect(claims["iss"] == "cid")
            #expect(claims["sub"] == "cid")
            #expect(claims["aud"] == "https://c.test/token")
            #expect(claims["iat"] == .integer(1_750_000_000))
            #expect(claims["exp"] == .integer(1_750_000_060))
            #expect(claims["jti"] == .string(Base64URL.encode([UInt8](repeating: 1, count: 16))))
            #expect(try JWSVerifier.header(of: assertion).keyID == key.keyID)
        }
    }

    @Test func assertionRefusesKeysOtherThanP256AndRSA() throws {
        for key in [try JWK.generateEd25519(), try JWK.generateP256().publicKey] {
            #expect(throws: JOSEError.self) {
                _ = try ClientAssertion.make(
                    clientID: "cid", audience: "https://c.test/token", privateKey: key, issuedAt: now,
                    random: SystemRandom())
            }
        }
    }

    @Test func privateKeyJWTSendsAFreshAssertionInEveryRequest() throws {
        let key = try JWK.generateP256()
        let provider = try resolve(settings(method: .privateKeyJWT, secret: nil, key: key.pkcs8PEM(), keyID: "kid-1"))
        #expect(provider.clientAuthentication == .privateKeyJWT)
        let random = CountingRandom()
        let token = try provider.tokenRequest(code: "c", pkceVerifier: nil, now: now, random: random)
        let refresh = try provider.refreshRequest(refreshToken: "r", now: now, random: random)
        let revoke = try #require(
            try provider.revocationRequest(token: "t", tokenTypeHint: nil, now: now, random: random))
        #expect(revoke.url != "https://c.test/token")
        var jtis: Set<String> = []
        // Each assertion names the endpoint it is sent to: the token endpoint, and the revocation endpoint at
        // revocation (the audience glewlwyd and idpyoidc accept there).
        for (request, audience) in [
            (token, "https://c.test/token"), (refresh, "https://c.test/token"), (revoke, revoke.url),
        ] {
            let form = Query.form(request.body)
            #expect(request.headers["Authorization"] == nil)
            #expect(form["client_id"] == "cid")
            #expect(form["client_secret"] == nil)
            #expect(form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let assertion = try #require(form["client_assertion"])
            #expect(try JWSVerifier.header(of: assertion).keyID == "kid-1")
            let claims = try verifiedClaims(assertion, key: key.with(keyID: "kid-1"), algorithm: .es256)
            #expect(claims["aud"]?.stringValue == audience)
            jtis.insert(claims["jti"]?.stringValue ?? "")
        }
        #expect(jtis.count == 3)
    }

    @Test func basicFormURLEncodesIDAndSecretBeforeBase64() throws {
        let secret = "a+b/c=d%e:f g"
        let provider = try resolve(settings(method: .clientSecretBasic, secret: secret))
        let request = try provider.tokenRequest(code: "c", pkceVerifier: nil, now: now)
        let header = try #require(request.headers["Authorization"])
        #expect(header.hasPrefix("Basic "))
        let decoded = String(decoding: try #require(Data(base64Encoded: String(header.dropFirst(6)))), as: UTF8.self)
        #expect(decoded == "cid:a%2Bb%2Fc%3Dd%25e%3Af+g")
        #expect(Query.form(request.body)["client_secret"] == nil)
        let post = try resolve(settings(method: .clientSecretPost, secret: secret))
            .tokenRequest(code: "c", pkceVerifier: nil, now: now)
        #expect(Query.form(post.body)["client_secret"] == secret)
        #expect(post.headers["Authorization"] == nil)
    }

    @Test func aPluginWithOneMethodRefusesAnotherNamingIt() {
        do throws(ConfigurationError) {
            _ = try resolve(settings(type: "fixed", method: .clientSecretPost))
            Issue.record("expected unsupported_client_authentication")
        } catch {
            #expect(error.issues.map(\.code.rawValue) == ["unsupported_client_authentication"])
            #expect(error.issues.first?.message.contains("Fixed allows only: client_secret_basic") == true)
            #expect(error.issues.first?.location == Self.at)
        }
    }

    @Test func anAdvertisedListLimitsTheChoice() {
        let choice = ClientAuthenticationChoice.advertised(
            ["client_secret_post", "tls_client_auth"], preferred: .clientSecretBasic)
        #expect(choice.allowed == [.clientSecretPost])
        #expect(choice.defaultMethod == .clientSecretPost)
        let preferred = ClientAuthenticationChoice.advertised(
            ["private_key_jwt", "client_secret_basic"], preferred: .clientSecretBasic)
        #expect(preferred.defaultMethod == .clientSecretBasic)
        #expect(preferred.allowed == [.clientSecretBasic, .privateKeyJWT])
        #expect(ClientAuthenticationChoice.advertised(nil, preferred: .clientSecretPost).allowed.count == 3)
    }

    /// The retry after a DPoP nonce challenge carries a fresh assertion (a server may have spent the first `jti`);
    /// the rest of the form is kept, and a request without an assertion is left alone.
    @Test func theDPoPRetryGetsAFreshAssertion() throws {
        let key = try JWK.generateP256()
        let provider = try resolve(settings(method: .privateKeyJWT, secret: nil, key: key.pkcs8PEM(), keyID: "kid-1"))
        let refresh = try provider.refreshRequest(refreshToken: "r", now: now, random: CountingRandom())
        let renewed = try provider.withFreshClientAssertion(refresh, now: now)
        let before = Query.form(refresh.body)
        let after = Query.form(renewed.body)
        #expect(before["client_assertion"] != after["client_assertion"])
        #expect(before["refresh_token"] == after["refresh_token"] && after["grant_type"] == "refresh_token")
        let claims = try verifiedClaims(
            try #require(after["client_assertion"]), key: key.with(keyID: "kid-1"), algorithm: .es256)
        #expect(claims["aud"] == "https://c.test/token")
        let plain = HTTPClientRequest(url: "https://c.test/userinfo")
        #expect(try provider.withFreshClientAssertion(plain, now: now).body == nil)
    }

    @Test func privateKeyJWTNeedsAP256OrRSAKeyAndNoSecret() throws {
        do throws(ConfigurationError) {
            _ = try resolve(settings(method: .privateKeyJWT, secret: nil))
            Issue.record("expected missing_required_key")
        } catch {
            #expect(error.issues.map(\.code.rawValue) == ["missing_required_key"])
            #expect(error.issues.first?.message.contains("private_key_file") == true)
        }
        let ed25519 = try JWK.generateEd25519().pkcs8PEM()
        do throws(ConfigurationError) {
            _ = try resolve(settings(method: .privateKeyJWT, secret: nil, key: ed25519))
            Issue.record("expected invalid_value")
        } catch {
            #expect(error.issues.map(\.code.rawValue) == ["invalid_value"])
            #expect(error.issues.first?.message.contains("EC P-256 or RSA") == true)
            #expect(error.issues.first?.message.contains("PRIVATE KEY") == false)
        }
        let rsa = try resolve(settings(method: .privateKeyJWT, secret: nil, key: try JWK.generateRSA().pkcs8PEM()))
        #expect(rsa.clientAuthentication == .privateKeyJWT)
    }

    @Test func theDefaultIsThePluginsChoice() throws {
        #expect(try resolve(settings(method: nil)).clientAuthentication == .clientSecretPost)
        #expect(try resolve(settings(type: "fixed", method: nil)).clientAuthentication == .clientSecretBasic)
    }
}
