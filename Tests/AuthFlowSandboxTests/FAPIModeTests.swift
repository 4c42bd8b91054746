import AuthFlow
import AuthFlowCurl
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Foundation
import Testing

/// The sandbox's OpenID issuer in its strict FAPI 2.0 mode, signed in to by the project's `type: oidc` plugin
/// and driver with `par: required` and `private_key_jwt`: the round trip, a `request_uri` used twice or after its
/// 60 s on the sandbox's clock, a refused push and a client that authenticates any other way.
@Suite struct FAPIModeTests {
    static let client = CurlHTTPClient(configuration: .init(defaultTimeout: 30, connectTimeout: 15))
    static let redirectURI = "http://localhost:8080/auth/bank/callback"

    struct Stand {
        let sandbox: SandboxIdentityProvider
        let clock: ManualClock
        let signIn: SignIn
        let directory: String
    }

    /// A started FAPI-mode sandbox with one client registered under `registeredKey`, and a driver whose
    /// configuration signs with `configuredKey` (the same by default) and adds `extra` lines.
    func withStand(
        registeredKey: JWK? = nil, configuredKey: JWK, extra: String = "",
        sandboxSettings: (inout SandboxConfiguration) -> Void = { _ in }, httpClient: (any HTTPClient)? = nil,
        _ body: (Stand) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-fapi-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let keyFile = directory + "/client.pem"
        try configuredKey.pkcs8PEM().write(toFile: keyFile, atomically: true, encoding: .utf8)
        let clock = ManualClock(Date())
        var configuration = SandboxConfiguration(clock: clock, signingKeys: try SandboxHarness.sharedKeys.get())
        configuration.fapi2 = true
        sandboxSettings(&configuration)
        let sandbox = SandboxIdentityProvider(configuration: configuration)
        try sandbox.start()
        do {
            try sandbox.register(
                .openID(
                    clientID: "fapi-client", redirectURIs: [Self.redirectURI],
                    assertionKeys: [registeredKey ?? configuredKey]))
            sandbox.setAutoConsent(SandboxIdentity.presets(for: .google)[0], for: .google)
            let issuer = try #require(sandbox.issuer(for: .google))
            let loaded = try Self.configuration(issuer: issuer, keyFile: keyFile, par: "required", extra: extra)
            let providers = try await ProviderRegistry.standard.resolve(loaded, httpClient: Self.client)
            let signIn = SignIn(
                providers: providers, httpClient: httpClient ?? Self.client,
                flowStore: InMemoryFlowStore(clock: SystemClock()))
            try await body(Stand(sandbox: sandbox, clock: clock, signIn: signIn, directory: directory))
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }

    /// One `type: oidc` provider `bank` signing its assertions with the key in `keyFile`.
    static func configuration(issuer: String, keyFile: String, par: String, extra: String = "") throws
        -> Configuration
    {
        let yaml = """
            server:
              public_url: http://localhost:8080
              secret: "0123456789abcdef0123456789abcdef0123"
            providers:
              bank:
                type: oidc
                issuer: \(issuer)
                client_id: fapi-client
                client_auth: private_key_jwt
                private_key_file: \(keyFile)
                par: \(par)
            \(extra)
            """
        return try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
    }

    func browse(_ url: String) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.timeout = 30
        let answer = try await Self.client.send(request)
        return Reply(status: answer.status, headers: answer.headers, body: answer.body)
    }

    func callbackPairs(_ location: String?) -> [(String, String)] {
        guard let location, let question = location.firstIndex(of: "?") else { return [] }
        return FormURLEncoding.decode(location[location.index(after: question)...])
    }

    @Test func signsInWithPushedRequestsPrivateKeyJWTAndTheIssParameter() async throws {
        try await withStand(configuredKey: try JWK.generateP256(keyID: "fapi-1")) { stand in
            let start = try await stand.signIn.begin(
                provider: "bank", returnTo: "/", browserBinding: stand.signIn.newBrowserBinding())
            let url = try #require(URLComponents(string: start.redirectURL))
            #expect(url.queryItems?.map(\.name) == ["client_id", "request_uri"])
            #expect(start.trace.last?.checks.contains("par") == true)
            // The issuer demands signed request objects (require_signed_request_object), so the push carries one.
            #expect(start.trace.last?.checks.contains("request_object") == true)

            let reply = try await browse(start.redirectURL)
            #expect(reply.status == 302)
            let pairs = callbackPairs(reply.location)
            #expect(pairs.contains { $0 == ("iss", stand.sandbox.issuer(for: .google) ?? "") })
            let result = try await stand.signIn.complete(
                provider: "bank", method: .get, parameters: CallbackParameters(pairs), flowRecord: start.record)
            #expect(result.identity.subject == SandboxIdentity.presets(for: .google)[0].subject)
            #expect(result.trace.contains { $0.checks.contains("iss_parameter") })
            // The pushed request's answer gave the DPoP nonce, so the code exchange needed no second try.
            #expect(stand.sandbox.requestCounts(for: .google).token == 1)
            #expect(start.trace.last?.checks.contains("dpop") == true)
            #expect(result.tokens.tokenType == "DPoP")
            let dpopKey = try #require(result.tokens.dpopKey)
            // Revocation authenticates with private_key_jwt too, and proves possession of the grant's key: a fresh
            // TokenOperations knows no nonce yet, so it is challenged once and retries.
            let provider = try #require(stand.signIn.providers["bank"])
            try await TokenOperations(providers: [provider], httpClient: Self.client).revoke(
                provider: "bank", token: result.tokens.accessToken, tokenTypeHint: .accessToken, dpopKey: dpopKey)
            #expect(stand.sandbox.requestCounts(for: .google).revocation == 2)

            // Each request_uri is used once.
            let again = try await browse(start.redirectURL)
            #expect(again.status == 400)
            #expect(again.text.contains("invalid_request_uri"))
        }
    }

    @Test func refusesARequestURIUsedAfterItsLifetime() async throws {
        try await withStand(configuredKey: try JWK.generateP256()) { stand in
            let start = try await stand.signIn.begin(
                provider: "bank", returnTo: "/", browserBinding: stand.signIn.newBrowserBinding())
            stand.clock.advance(by: Double(SandboxConfiguration.pushedRequestLifetime) + 1)
            let late = try await browse(start.redirectURL)
            #expect(late.status == 400)
            #expect(late.text.contains("expired"))
            // Only pushed requests are accepted: the classic request with every parameter in the URL is refused.
            let classic = try await browse(
                stand.sandbox.endpoints(for: .google).authorization
                    + "?response_type=code&client_id=fapi-client&scope=openid")
            #expect(classic.status == 400)
            #expect(classic.text.contains("request_uri"))
        }
    }

    @Test func aRefusedPushIsATypedError() async throws {
        // The issuer refuses a request it would refuse at its authorization endpoint.
        try await withStand(
            configuredKey: try JWK.generateP256(), extra: "    authorization_params: { access_type: sometimes }"
        ) { stand in
            await #expect {
                _ = try await stand.signIn.begin(
                    provider: "bank", returnTo: "/", browserBinding: stand.signIn.newBrowserBinding())
            } throws: { error in
                guard let error = error as? SignInError else { return false }
                return error.code.rawValue == "pushed_authorization_error" && error.providerError == "invalid_request"
                    && error.upstreamStatus == 400
            }
        }
        // A client whose assertion the issuer cannot verify is refused at the push, before any redirect.
        try await withStand(registeredKey: try JWK.generateP256(), configuredKey: try JWK.generateP256()) { stand in
            await #expect {
                _ = try await stand.signIn.begin(
                    provider: "bank", returnTo: "/", browserBinding: stand.signIn.newBrowserBinding())
            } throws: { error in
                guard let error = error as? SignInError else { return false }
                return error.providerError == "invalid_client" && error.upstreamStatus == 401
            }
            #expect(stand.sandbox.requestCounts(for: .google).token == 0)
        }
    }

    /// A pushed request without a request object, or with one the issuer cannot verify, is
    /// `invalid_request_object`, although the client authenticated.
    @Test func refusesAPushWithoutAVerifiableRequestObject() async throws {
        let key = try JWK.generateP256(keyID: "k")
        try await withStand(configuredKey: key) { stand in
            let issuer = try #require(stand.sandbox.issuer(for: .google))
            let now = Int64(stand.clock.now().timeIntervalSince1970)
            func assertion() throws -> String {
                let claims: JSONValue = [
                    "iss": "fapi-client", "sub": "fapi-client", "aud": .string(issuer), "iat": .integer(now),
                    "exp": .integer(now + 60), "jti": .string(UUID().uuidString),
                ]
                return try JWS.sign(payload: Array(claims.serialized().utf8), key: key, algorithm: .es256)
            }
            let parameters: JSONValue = [
                "iss": "fapi-client", "aud": .string(issuer), "nbf": .integer(now), "exp": .integer(now + 60),
                "response_type": "code", "client_id": "fapi-client", "redirect_uri": .string(Self.redirectURI),
                "scope": "openid", "code_challenge": .string(String(repeating: "a", count: 43)),
                "code_challenge_method": "S256", "dpop_jkt": .string(try JWK.generateP256().thumbprint()),
            ]
            let wrongType = try JWS.sign(
                payload: Array(parameters.serialized().utf8), key: key, algorithm: .es256,
                extraHeader: ["typ": "JWT"])
            let otherKey = try JWS.sign(
                payload: Array(parameters.serialized().utf8), key: try JWK.generateP256(), algorithm: .es256,
                extraHeader: ["typ": "oauth-authz-req+jwt"])
            let good = try JWS.sign(
                payload: Array(parameters.serialized().utf8), key: key, algorithm: .es256,
                extraHeader: ["typ": "oauth-authz-req+jwt"])
            for (request, expected) in [(nil, 400), (wrongType, 400), (otherKey, 400), (good, 201)] {
                var fields = [
                    ("client_id", "fapi-client"), ("client_assertion", try assertion()),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"),
                ]
                if let request { fields.append(("request", request)) }
                let answer = try await Self.client.send(HTTPClientRequest.form(url: issuer + "/par", fields: fields))
                #expect(answer.status == expected, "\(answer.bodyText)")
                if expected == 400 { #expect(answer.bodyText.contains("invalid_request_object")) }
            }
        }
    }

    @Test func acceptsOnlyPrivateKeyJWTAndRequiresParNotOff() async throws {
        try await withStand(configuredKey: try JWK.generateP256()) { stand in
            let par = try #require(stand.sandbox.issuer(for: .google)) + "/par"
            var basic = HTTPClientRequest.form(
                url: par,
                fields: [("response_type", "code"), ("client_id", "fapi-client"), ("redirect_uri", Self.redirectURI)])
            basic.setBasicAuthorization(user: "fapi-client", password: "guess")
            let refused = try await Self.client.send(basic)
            #expect(refused.status == 401)
            #expect(refused.bodyText.contains("invalid_client"))
            let anonymousRevocation = try await Self.client.send(
                .form(url: try #require(stand.sandbox.endpoints(for: .google).revocation), fields: [("token", "t")]))
            #expect(anonymousRevocation.status == 401)

            // Discovery demands pushed requests, so a configuration that turns them off is refused.
            let issuer = try #require(stand.sandbox.issuer(for: .google))
            let loaded = try Self.configuration(issuer: issuer, keyFile: stand.directory + "/client.pem", par: "off")
            await #expect {
                _ = try await ProviderRegistry.standard.resolve(loaded, httpClient: Self.client)
            } throws: { error in
                (error as? ConfigurationError)?.issues.first?.message.contains("require_pushed_authorization_requests")
                    == true
            }
        }
    }
}
