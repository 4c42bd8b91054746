import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

/// Pushed authorization requests (RFC 9126): `par:` against what the provider offers and demands, the pushed
/// request, the redirect that carries only `client_id` and `request_uri`, and every refusal of the answer.
@Suite struct PushedAuthorizationTests {
    static let parEndpoint = "https://idp.test/par"
    static let parLocation = SourceLocation(fileName: "providers.yaml", line: 9, column: 5, sourceLine: "    par: off")

    func provider(
        endpoint: String? = PushedAuthorizationTests.parEndpoint, demanded: Bool = false,
        mode: PushedAuthorizationMode = .auto, capabilities: [String: Bool] = ["oidc": true, "pkce": true]
    ) throws(ConfigurationError) -> ResolvedProvider {
        var plugin = TestPlugin(clientSecretKey: TestProviders.clientSecretKey)
        plugin.pushedAuthorizationEndpoint = endpoint
        plugin.demandsPushedAuthorization = demanded
        let base = TestProviders.settings(capabilities: capabilities)
        var settings = ProviderSettings(
            name: base.name, type: base.type, clientID: base.clientID, clientSecret: base.clientSecret,
            capabilities: base.capabilities, location: base.location, keyLocations: ["par": Self.parLocation])
        settings.pushedAuthorization = mode
        return try ProviderRegistry([plugin]).resolve(settings, publicURL: TestProviders.publicURL)
    }

    func issues(_ body: () throws(ConfigurationError) -> ResolvedProvider) -> [ConfigurationIssue] {
        do throws(ConfigurationError) {
            _ = try body()
            return []
        } catch {
            return error.issues
        }
    }

    static func answer(_ status: Int, _ json: JSONValue) -> HTTPClientResponse {
        HTTPClientResponse(
            status: status, headers: ["Content-Type": "application/json"], body: Array(json.serialized().utf8))
    }

    static let accepted = answer(201, ["request_uri": "urn:ietf:params:oauth:request_uri:abc", "expires_in": 60])

    // MARK: - Configuration

    @Test func autoPushesWhenTheProviderHasTheEndpointAndOffDoesNot() throws {
        #expect(try provider().pushedAuthorizationEndpoint == Self.parEndpoint)
        #expect(try provider(mode: .required).pushedAuthorizationEndpoint == Self.parEndpoint)
        #expect(try provider(mode: .off).pushedAuthorizationEndpoint == nil)
        #expect(try provider(endpoint: nil).pushedAuthorizationEndpoint == nil)
    }

    @Test func requiredWithoutAnEndpointIsAPositionedError() {
        let found = issues { () throws(ConfigurationError) in try provider(endpoint: nil, mode: .required) }
        #expect(found.count == 1)
        #expect(found.first?.code == .missingEndpoint)
        #expect(found.first?.location == Self.parLocation)
        #expect(found.first?.message.contains("pushed_authorization_request_endpoint") == true)
    }

    @Test func offWhereTheProviderDemandsPushingNamesTheMetadataField() {
        let found = issues { () throws(ConfigurationError) in try provider(demanded: true, mode: .off) }
        #expect(found.count == 1)
        #expect(found.first?.code == .invalidValue)
        #expect(found.first?.location == Self.parLocation)
        #expect(found.first?.message.contains("require_pushed_authorization_requests") == true)
        let noEndpoint = issues { () throws(ConfigurationError) in try provider(endpoint: nil, demanded: true) }
        #expect(noEndpoint.first?.code == .missingEndpoint)
        #expect(noEndpoint.first?.message.contains("require_pushed_authorization_requests") == true)
        #expect(issues { () throws(ConfigurationError) in try provider(demanded: true) }.isEmpty)
    }

    // MARK: - The flow

    func pushed(_ provider: ResolvedProvider, now: Date = TestIdentityProvider.start) throws -> (
        OAuthFlow, HTTPClientRequest
    ) {
        var flow = OAuthFlow(provider: provider)
        let harness = FlowHarness(provider)
        let action = try flow.begin(
            returnTo: "/home", intent: .login, browserBinding: harness.binding, secrets: harness.secrets, now: now)
        guard case .pushAuthorizationRequest(let request) = action else {
            Issue.record("expected a pushed authorization request")
            throw CancellationError()
        }
        return (flow, request)
    }

    @Test func pushesEveryParameterAndRedirectsWithOnlyClientIDAndRequestURI() throws {
        let provider = try provider()
        var (flow, request) = try pushed(provider)
        #expect(request.method == "POST")
        #expect(request.url == Self.parEndpoint)
        let form = FormURLEncoding.decode(String(decoding: request.body ?? [], as: UTF8.self))
        let names = form.map(\.0)
        for name in ["response_type", "redirect_uri", "scope", "state", "nonce", "code_challenge", "client_secret"] {
            #expect(names.contains(name), "\(name) is pushed")
        }
        #expect(names.filter { $0 == "client_id" }.count == 1)
        let redirect = try flow.pushedAuthorizationResponseReceived(
            Self.accepted, now: TestIdentityProvider.start.addingTimeInterval(1))
        let url = try #require(URLComponents(string: redirect.url))
        #expect(url.path == "/authorize")
        #expect(url.queryItems?.map(\.name) == ["client_id", "request_uri"])
        #expect(url.queryItems?.last?.value == "urn:ietf:params:oauth:request_uri:abc")
        #expect(flow.trace.last?.checks.contains("par") == true)
        #expect(flow.trace.last?.providerRoundTrip == true)
        #expect(redirect.record.pkceVerifier != nil)
    }

    @Test func authenticatesAtTheEndpointAsAtTheTokenEndpoint() throws {
        let key = try JWK.generateP256(keyID: "k1")
        for method in [ClientAuthentication.clientSecretBasic, .clientSecretPost, .privateKeyJWT] {
            var plugin = ClientAuthenticationTests.ChoosingPlugin()
            plugin.pushedAuthorizationEndpoint = "https://c.test/par"
            let settings = ProviderSettings(
                name: "c", type: "choosing", clientID: "cid",
                clientSecret: method == .privateKeyJWT ? nil : Secret("sec"),
                privateKey: method == .privateKeyJWT ? Secret(try key.pkcs8PEM()) : nil,
                location: TestProviders.location, clientAuthentication: method)
            let provider = try ProviderRegistry([plugin]).resolve(settings, publicURL: TestProviders.publicURL)
            let request = try pushed(provider).1
            let form = FormURLEncoding.decode(String(decoding: request.body ?? [], as: UTF8.self))
            #expect(form.filter { $0.0 == "client_id" }.map(\.1) == ["cid"], "\(method): client_id once")
            switch method {
            case .clientSecretBasic:
                #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
                #expect(!form.contains { $0.0 == "client_secret" })
            case .clientSecretPost:
                #expect(form.contains { $0 == ("client_secret", "sec") })
                #expect(request.headers["Authorization"] == nil)
            default:
                #expect(
                    form.contains {
                        $0 == ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
                    })
                let assertion = try #require(form.first { $0.0 == "client_assertion" }?.1)
                let verified = try JWSVerifier(allowedAlgorithms: [.es256]).verify(
                    assertion, keys: JWKSet(keys: [key.publicKey]))
                // RFC 9126 §2: the endpoint's own URL, the audience glewlwyd and idpyoidc accept there.
                #expect(try JSONValue.parse(verified.payload)["aud"] == "https://c.test/par")
            }
        }
    }

    @Test func refusesEveryUnusableAnswerAsATypedError() throws {
        let provider = try provider()
        let described: JSONValue = ["error": "invalid_request", "error_description": "redirect_uri not registered"]
        let cases: [(HTTPClientResponse, String?, String)] = [
            (Self.answer(400, described), "invalid_request", "redirect_uri not registered"),
            (Self.answer(401, ["error": "invalid_client"]), "invalid_client", "HTTP 401"),
            (Self.answer(201, ["error": "server_error"]), "server_error", "HTTP 201"),
            (HTTPClientResponse(status: 503, headers: [:], body: Array("down".utf8)), nil, "HTTP 503"),
            (HTTPClientResponse(status: 201, headers: [:], body: Array("not json".utf8)), nil, "JSON object"),
            (Self.answer(201, ["expires_in": 60]), nil, "request_uri"),
            (Self.answer(201, ["request_uri": "", "expires_in": 60]), nil, "request_uri"),
            (
                Self.answer(201, ["request_uri": .string(String(repeating: "u", count: 2049)), "expires_in": 60]), nil,
                "request_uri"
            ),
            (Self.answer(201, ["request_uri": "urn:x"]), nil, "expires_in"),
            (Self.answer(201, ["request_uri": "urn:x", "expires_in": "60"]), nil, "expires_in"),
            (Self.answer(201, ["request_uri": "urn:x", "expires_in": 0]), nil, "expires_in"),
            (
                Self.answer(400, ["error": "invalid_request", "error_description": "quote \" here"]), "invalid_request",
                "HTTP 400"
            ),
        ]
        for (response, providerError, fragment) in cases {
            var (flow, _) = try pushed(provider)
            do {
                _ = try flow.pushedAuthorizationResponseReceived(response, now: TestIdentityProvider.start)
                Issue.record("expected a refusal containing '\(fragment)'")
            } catch {
                #expect(error.code == .pushedAuthorizationError)
                #expect(error.providerError == providerError)
                #expect(error.upstreamStatus == response.status)
                #expect(error.statusHint == 502)
                #expect(error.message.contains(fragment), "\(error.message)")
                #expect(!error.message.contains("quote"), "a description with a quote is not echoed")
                #expect(flow.trace.last?.outcome == .failed(.pushedAuthorizationError))
            }
        }
    }

    @Test func refusesARequestURIThatExpiredBeforeTheRedirect() throws {
        var (flow, _) = try pushed(try provider())
        let late = TestIdentityProvider.start.addingTimeInterval(60)
        #expect(throws: SignInError.self) { try flow.pushedAuthorizationResponseReceived(Self.accepted, now: late) }
        var (inTime, _) = try pushed(try provider())
        let redirect = try inTime.pushedAuthorizationResponseReceived(
            Self.accepted, now: TestIdentityProvider.start.addingTimeInterval(59))
        #expect(redirect.url.contains("request_uri="))
    }

    @Test func thePureStartRefusesAProviderThatPushes() throws {
        let provider = try provider()
        var flow = OAuthFlow(provider: provider)
        let harness = FlowHarness(provider)
        #expect {
            _ = try flow.start(
                returnTo: nil, intent: .login, browserBinding: harness.binding, secrets: harness.secrets,
                now: harness.now)
        } throws: { ($0 as? SignInError)?.code == .invalidRequest }
        #expect(try FlowHarness(try self.provider(mode: .off)).begin().url.contains("code_challenge="))
    }

    // MARK: - The driver

    @Test func theDriverPushesBeforeRedirecting() async throws {
        let http = FakeHTTPClient()
        http.route(Self.parEndpoint) { _ in Self.accepted }
        let clock = ManualClock(TestIdentityProvider.start)
        let driver = SignIn(
            providers: [try provider()], httpClient: http, flowStore: InMemoryFlowStore(clock: clock), clock: clock)
        let start = try await driver.begin(provider: "test", returnTo: "/", browserBinding: driver.newBrowserBinding())
        #expect(http.requests(to: Self.parEndpoint).count == 1)
        #expect(start.redirectURL.hasPrefix("https://idp.test/authorize?client_id="))
        #expect(!start.redirectURL.contains("state="))
        #expect(start.trace.last?.checks.contains("par") == true)

        http.route(Self.parEndpoint) { _ in Self.answer(400, ["error": "invalid_scope"]) }
        await #expect {
            _ = try await driver.begin(provider: "test", returnTo: "/", browserBinding: driver.newBrowserBinding())
        } throws: { ($0 as? SignInError)?.providerError == "invalid_scope" }
        http.route(Self.parEndpoint) { _ in throw HTTPClientError(code: .timeout, message: "slow") }
        await #expect {
            _ = try await driver.begin(provider: "test", returnTo: "/", browserBinding: driver.newBrowserBinding())
        } throws: { ($0 as? SignInError)?.code == .providerUnreachable }
    }
}
