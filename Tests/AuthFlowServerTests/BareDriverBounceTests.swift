import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowCurl
import AuthFlowDemo
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowSandbox
import Testing

/// The bare ``SignIn`` driver with the public browser-binding kit (``FlowCookies``, ``FormPostBounce``) through
/// the sandbox's Apple, whose answer is a cross-site form_post: no `SignInServer` involved. The app's side of
/// the callback is built from real HTTP values, as any HTTP stack would hand them over.
@Suite("The bare driver and the browser-binding kit: Apple's form_post with the bounce")
struct BareDriverBounceTests {
    static let appURL = "https://app.example"
    static let callbackPath = "/auth/apple/callback"

    /// The sandbox, a driver for its Apple provider and the kit, for `body`.
    static func withDriver(
        _ body: (SandboxIdentityProvider, SignIn, FlowCookies) async throws -> Void
    ) async throws {
        let sandbox = SandboxIdentityProvider(configuration: SandboxConfiguration(signingKeys: SharedKeys.signing))
        _ = try sandbox.start()
        do {
            try await run(sandbox, body)
        } catch {
            await sandbox.stop()
            throw error
        }
        await sandbox.stop()
    }

    static func run(
        _ sandbox: SandboxIdentityProvider, _ body: (SandboxIdentityProvider, SignIn, FlowCookies) async throws -> Void
    ) async throws {
        let location = SourceLocation(fileName: "test.yaml", line: 1, column: 1, sourceLine: "")
        let loaded = Configuration(
            server: ServerSettings(
                listen: ListenAddress(host: "127.0.0.1", port: 8080), publicURL: appURL,
                secret: Secret("test-secret-0123456789abcdef-0123456789")),
            store: StoreSettings(kind: .memory),
            providers: [ProviderSettings(name: "apple", type: "apple", clientID: "app.example.web", location: location)]
        )
        let configuration = try SandboxDeployment.attach(loaded, to: sandbox).configuration
        let clock = SystemClock()
        let signIn = SignIn(
            providers: try ProviderRegistry.standard.resolve(configuration), httpClient: CurlHTTPClient(),
            flowStore: InMemoryFlowStore(clock: clock), clock: clock)
        let seal = try FlowRecordSeal(secret: Array("flow-seal-secret-0123456789abcdef".utf8), random: SystemRandom())
        try await body(sandbox, signIn, FlowCookies(seal: seal, secure: true))
    }

    /// `name=value` of a `Set-Cookie` line, as the browser sends it back.
    static func cookiePair(_ setCookie: String) -> String { String(setCookie.prefix { $0 != ";" }) }

    /// A POST to the app's callback with `fields`, optionally cross-site and with the flow cookie.
    static func callback(fields: [(String, String)], cookie: String?, crossSite: Bool) -> HTTPServerRequest {
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        if let cookie { headers["Cookie"] = cookie }
        headers["Sec-Fetch-Site"] = crossSite ? "cross-site" : "same-origin"
        return HTTPServerRequest(
            method: "POST", path: callbackPath, headers: headers, body: Array(FormURLEncoding.encode(fields).utf8),
            remoteAddress: "192.0.2.7")
    }

    /// Begins a sign-in as the bare driver's app would and lets the sandbox's Apple answer: the flow cookie and
    /// Apple's form_post fields.
    static func appleAnswer(_ sandbox: SandboxIdentityProvider, _ signIn: SignIn, _ cookies: FlowCookies)
        async throws -> (cookie: String, fields: [(String, String)])
    {
        let start = try await signIn.begin(provider: "apple", returnTo: "/", browserBinding: signIn.newBrowserBinding())
        let setCookie = try cookies.setCookie(for: start.record, lifetime: 600)
        #expect(setCookie.hasPrefix("__Host-authflow_flow_apple."))
        #expect(setCookie.contains("; HttpOnly; SameSite=Lax; Secure"))
        sandbox.setAutoConsent(
            SandboxIdentity(subject: "ada-1", email: "ada@example.com", givenName: "Ada", familyName: "Lovelace"),
            for: .apple)
        let authorize = try await TestBrowser().get(start.redirectURL)
        try #require(authorize.status == 200, "authorize answered \(authorize.status)")
        let form = try #require(HTMLForm(authorize.text), "expected Apple's form_post page")
        return (cookiePair(setCookie), form.fields)
    }

    @Test func appleCompletesThroughTheBounceWithItsFirstLoginName() async throws {
        try await Self.withDriver { sandbox, signIn, cookies in
            let (cookie, appleFields) = try await Self.appleAnswer(sandbox, signIn, cookies)

            // Apple's POST arrives cross-site: the Lax flow cookie stays behind, so the app bounces.
            let first = Self.callback(fields: appleFields, cookie: nil, crossSite: true)
            let firstFields = try FormPostBounce.callbackFields(first)
            let state = firstFields.first { $0.0 == "state" }?.1 ?? ""
            let none = try cookies.record(in: first, state: state, provider: "apple")
            #expect(none == nil)
            #expect(FormPostBounce.shouldBounce(request: first, fields: firstFields, hasFlowRecord: false))
            let page = FormPostBounce.response(action: Self.callbackPath, fields: firstFields)
            #expect(page.headers["Referrer-Policy"] == "no-referrer")
            #expect(page.headers["Content-Security-Policy"]?.contains(FormPostBounce.scriptHash) == true)
            let bounce = try #require(HTMLForm(String(decoding: page.body, as: UTF8.self)))
            #expect(bounce.action == Self.callbackPath)
            #expect(bounce.fields.contains { $0 == (FormPostBounce.markerField, "1") })

            // The page's same-origin re-POST carries the flow cookie: the sign-in completes in this browser.
            let second = Self.callback(fields: bounce.fields, cookie: cookie, crossSite: false)
            let secondFields = try FormPostBounce.callbackFields(second)
            let record = try cookies.record(in: second, state: state, provider: "apple")
            #expect(record != nil)
            #expect(!FormPostBounce.shouldBounce(request: second, fields: secondFields, hasFlowRecord: record != nil))
            let result = try await signIn.complete(
                provider: "apple", method: .post,
                parameters: CallbackParameters(FormPostBounce.withoutMarker(secondFields)), flowRecord: record)
            #expect(result.identity.subject == "ada-1")
            // Apple's name arrives once, unverified, beside the verified identity.
            #expect(result.unverifiedProfile?.displayName == "Ada Lovelace")
        }
    }

    @Test func aBouncedRePostWithoutTheFlowCookieIsRefused() async throws {
        try await Self.withDriver { sandbox, signIn, cookies in
            let (_, appleFields) = try await Self.appleAnswer(sandbox, signIn, cookies)
            let bounced = appleFields + [(FormPostBounce.markerField, "1")]
            // Another browser replaying the re-POST has no flow cookie: no second bounce, and the driver refuses.
            let request = Self.callback(fields: bounced, cookie: nil, crossSite: false)
            let fields = try FormPostBounce.callbackFields(request)
            #expect(!FormPostBounce.shouldBounce(request: request, fields: fields, hasFlowRecord: false))
            let state = fields.first { $0.0 == "state" }?.1 ?? ""
            let refusal = await #expect(throws: SignInError.self) {
                _ = try await signIn.complete(
                    provider: "apple", method: .post,
                    parameters: CallbackParameters(FormPostBounce.withoutMarker(fields)),
                    flowRecord: try cookies.record(in: request, state: state, provider: "apple"))
            }
            #expect(refusal?.code == .browserBindingMismatch)
        }
    }

    @Test func aFlowCookieForAnotherStateDoesNotOpen() async throws {
        try await Self.withDriver { sandbox, signIn, cookies in
            let (cookie, appleFields) = try await Self.appleAnswer(sandbox, signIn, cookies)
            let forged = appleFields.map { $0.0 == "state" ? ($0.0, "someone-elses-state") : $0 }
            let request = Self.callback(fields: forged, cookie: cookie, crossSite: false)
            #expect(try cookies.record(in: request, state: "someone-elses-state", provider: "apple") == nil)
        }
    }

    @Test func oversizedCallbacksAreRefusedBeforeAnyBounce() throws {
        let many = (0...FormPostBounce.maximumFields).map { ("f\($0)", "v") }
        #expect(throws: BrowserBindingError.self) {
            _ = try FormPostBounce.callbackFields(Self.callback(fields: many, cookie: nil, crossSite: true))
        }
        let big = [("state", String(repeating: "x", count: FormPostBounce.maximumBytes))]
        #expect(throws: BrowserBindingError.self) {
            _ = try FormPostBounce.callbackFields(Self.callback(fields: big, cookie: nil, crossSite: true))
        }
    }
}
