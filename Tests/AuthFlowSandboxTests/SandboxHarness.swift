import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

/// How a test talks to the sandbox: straight through `handle(_:)`, or over real loopback HTTP.
enum Transport: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case direct
    case loopback

    var testDescription: String { rawValue }

    /// The transports the suites run over.
    static let available: [Transport] = [.direct, .loopback]
}

/// One HTTP answer, whichever transport carried it.
struct Reply: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> JSONValue { try JSONValue.parse(body) }

    /// `error` of an OAuth JSON error body.
    var oauthError: String? { (try? json())?["error"]?.stringValue }

    /// `error.code` of a Graph API error body.
    var graphCode: Int64? { (try? json())?["error"]?["code"]?.int64Value }

    var location: String? { headers["Location"] }
}

/// Fixed test data and helpers around one sandbox with every provider's client registered.
final class SandboxHarness: Sendable {
    static let appleClientID = "com.example.web"
    static let teamID = "TEAM123456"
    static let appleKeyID = "KEY1234567"
    static let googleClientID = "123-sandbox.apps.googleusercontent.com"
    static let facebookClientID = "1234567890"
    static let xClientID = "x-client-abc"
    static let xPublicClientID = "x-public-client"
    static let microsoftClientID = "6731de76-14a6-49ae-97bc-6eba6914391e"
    static let githubClientID = "Iv1.8a61f9b3a7aba766"
    static let secret = "s3cr3t-value-for-tests"

    static func redirectURI(_ provider: SandboxProvider) -> String {
        "https://app.example/auth/\(provider.rawValue)/callback"
    }

    /// Signing keys generated once for the whole test run (RSA generation is slow).
    static let sharedKeys: Result<[SandboxProvider: JWK], JOSEError> = Result { () throws(JOSEError) in
        var keys: [SandboxProvider: JWK] = [:]
        for (provider, kid) in [
            (SandboxProvider.apple, "APPLEKEY01"), (.google, "google-key-1"), (.facebook, "fb-key-1"),
            (.microsoft, "ms-key-1"),
        ] {
            keys[provider] = try JWK.generateRSA(bits: 2048, keyID: kid)
        }
        return keys
    }
    static let sharedAppleClientKey: Result<JWK, JOSEError> = Result { () throws(JOSEError) in
        try JWK.generateP256(keyID: appleKeyID)
    }

    let transport: Transport
    let sandbox: SandboxIdentityProvider
    let clock: ManualClock
    let appleClientKey: JWK
    let httpClient: CurlHTTPClient?

    /// - Parameter start: the manual clock's start; a fixed instant unless a test needs real time (peers).
    init(
        transport: Transport = .direct, notificationClient: (any HTTPClient)? = nil,
        start: Date = Date(timeIntervalSince1970: 1_750_000_000),
        maximumPendingEntries: Int = SandboxConfiguration.defaultMaximumPendingEntries
    ) throws {
        self.transport = transport
        clock = ManualClock(start)
        appleClientKey = try Self.sharedAppleClientKey.get()
        var configuration = SandboxConfiguration(
            publicBaseURL: transport == .direct ? "http://sandbox.test" : nil, clock: clock,
            notificationClient: notificationClient, signingKeys: try Self.sharedKeys.get())
        configuration.port = 0
        configuration.maximumPendingEntries = maximumPendingEntries
        sandbox = SandboxIdentityProvider(configuration: configuration)
        try sandbox.register(
            .apple(
                clientID: Self.appleClientID, teamID: Self.teamID, keyID: Self.appleKeyID,
                publicKey: appleClientKey.publicKey, redirectURIs: [Self.redirectURI(.apple)]))
        try sandbox.register(
            .google(clientID: Self.googleClientID, clientSecret: Self.secret, redirectURIs: [Self.redirectURI(.google)])
        )
        try sandbox.register(
            .facebook(
                clientID: Self.facebookClientID, clientSecret: Self.secret, redirectURIs: [Self.redirectURI(.facebook)])
        )
        try sandbox.register(
            .x(clientID: Self.xClientID, clientSecret: Self.secret, redirectURIs: [Self.redirectURI(.x)]))
        try sandbox.register(
            .x(clientID: Self.xPublicClientID, clientSecret: nil, redirectURIs: [Self.redirectURI(.x)]))
        try sandbox.register(
            .microsoft(
                clientID: Self.microsoftClientID, clientSecret: Self.secret,
                redirectURIs: [Self.redirectURI(.microsoft)]))
        try sandbox.register(
            .github(clientID: Self.githubClientID, clientSecret: Self.secret, redirectURIs: [Self.redirectURI(.github)])
        )
        if transport == .loopback {
            try sandbox.start()
            httpClient = CurlHTTPClient()
        } else {
            httpClient = nil
        }
    }

    deinit {
        // Stop the listener when the test is done with the harness, however the test ended.
        if transport == .loopback {
            let sandbox = self.sandbox
            Task { await sandbox.stop() }
        }
    }

    // MARK: - Requests

    func send(
        _ method: String, _ path: String, query: [(String, String)] = [], headers: HTTPHeaders = [:], body: [UInt8] = []
    ) async throws -> Reply {
        switch transport {
        case .direct:
            let response = await sandbox.handle(
                HTTPServerRequest(
                    method: method, path: path, query: query, headers: headers, body: body, remoteAddress: "127.0.0.1"))
            return Reply(status: response.status, headers: response.headers, body: response.body)
        case .loopback:
            let client = try #require(httpClient)
            var url = sandbox.baseURL + path
            if !query.isEmpty { url += "?" + FormURLEncoding.encode(query) }
            var request = HTTPClientRequest(method: method, url: url, headers: headers, body: body.isEmpty ? nil : body)
            request.timeout = 30
            let response = try await client.send(request)
            return Reply(status: response.status, headers: response.headers, body: response.body)
        }
    }

    func get(_ path: String, _ query: [(String, String)] = [], headers: HTTPHeaders = [:]) async throws -> Reply {
        try await send("GET", path, query: query, headers: headers)
    }

    func post(_ path: String, form: [(String, String)], headers: HTTPHeaders = [:]) async throws -> Reply {
        var headers = headers
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        return try await send("POST", path, headers: headers, body: Array(FormURLEncoding.encode(form).utf8))
    }

    // MARK: - Browser flow

    static func authorizePath(_ provider: SandboxProvider) -> String {
        switch provider {
        case .apple: "/apple/auth/authorize"
        case .google: "/google/o/oauth2/v2/auth"
        case .facebook: "/facebook/v19.0/dialog/oauth"
        case .x: "/x/i/oauth2/authorize"
        case .microsoft: "/microsoft/common/oauth2/v2.0/authorize"
        case .github: "/github/login/oauth/authorize"
        }
    }

    static func tokenPath(_ provider: SandboxProvider) -> String {
        switch provider {
        case .apple: "/apple/auth/token"
        case .google: "/google/token"
        case .facebook: "/facebook/v19.0/oauth/access_token"
        case .x: "/x/2/oauth2/token"
        case .microsoft: "/microsoft/common/oauth2/v2.0/token"
        case .github: "/github/login/oauth/access_token"
        }
    }

    /// A valid authorization query for each provider (PKCE included where it is required or given).
    static func authorizationQuery(
        _ provider: SandboxProvider, state: String = "st-123", nonce: String? = "n-0S6_WzA2Mj", pkce: PKCE? = nil
    ) -> [(String, String)] {
        var query: [(String, String)] = [
            ("client_id", clientID(provider)), ("redirect_uri", redirectURI(provider)), ("state", state),
        ]
        switch provider {
        case .apple:
            query += [("response_type", "code"), ("scope", "name email"), ("response_mode", "form_post")]
        case .google:
            query += [("response_type", "code"), ("scope", "openid email profile")]
        case .facebook:
            query += [("response_type", "code"), ("scope", "email")]
        case .x:
            query += [("response_type", "code"), ("scope", "tweet.read users.read offline.access")]
        case .microsoft:
            query += [("response_type", "code"), ("scope", "openid profile email offline_access")]
        case .github:
            query += [("scope", "read:user user:email")]
        }
        if let nonce, provider.issuesIDTokens { query.append(("nonce", nonce)) }
        if let pkce {
            query += [("code_challenge", pkce.challenge), ("code_challenge_method", "S256")]
        }
        return query
    }

    static func clientID(_ provider: SandboxProvider) -> String {
        switch provider {
        case .apple: appleClientID
        case .google: googleClientID
        case .facebook: facebookClientID
        case .x: xClientID
        case .microsoft: microsoftClientID
        case .github: githubClientID
        }
    }

    /// Opens the authorization endpoint and returns the consent page's ticket.
    func consentTicket(_ provider: SandboxProvider, query: [(String, String)]) async throws -> String {
        let page = try await get(Self.authorizePath(provider), query)
        #expect(page.status == 200, "consent page expected, got \(page.status): \(page.text)")
        return try #require(Self.hiddenField("ticket", in: page.text))
    }

    /// Runs the browser half of a sign-in and returns the authorization response (redirect or form_post page).
    func authorize(
        _ provider: SandboxProvider, query: [(String, String)], decision: String = "allow",
        identity: [(String, String)] = [("identity", "preset-0")]
    ) async throws -> Reply {
        let ticket = try await consentTicket(provider, query: query)
        return try await post(
            "/\(provider.rawValue)/consent", form: [("ticket", ticket), ("decision", decision)] + identity)
    }

    /// The fields of an authorization response: the redirect's query or fragment, or the form_post inputs.
    static func callbackFields(_ reply: Reply) -> [String: String] {
        var pairs: [(String, String)] = []
        if let location = reply.location {
            var rest = Substring(location)
            if let hash = rest.firstIndex(of: "#") {
                let fragment = rest[rest.index(after: hash)...]
                rest = rest[..<hash]
                if fragment != "_=_" { pairs += FormURLEncoding.decode(fragment) }
            }
            if let question = rest.firstIndex(of: "?") {
                pairs += FormURLEncoding.decode(rest[rest.index(after: question)...])
            }
        } else {
            pairs = hiddenFields(in: reply.text)
        }
        var fields: [String: String] = [:]
        for (name, value) in pairs { fields[name] = value }
        return fields
    }

    /// Signs in and returns the code (and the whole callback).
    func code(
        _ provider: SandboxProvider, query: [(String, String)]? = nil, pkce: PKCE? = nil,
        identity: [(String, String)] = [("identity", "preset-0")]
    ) async throws -> (code: String, fields: [String: String]) {
        let reply = try await authorize(
            provider, query: query ?? Self.authorizationQuery(provider, pkce: pkce), identity: identity)
        let fields = Self.callbackFields(reply)
        let code = try #require(fields["code"], "no code in \(reply.status) \(reply.location ?? reply.text)")
        return (code, fields)
    }

    // MARK: - Token requests

    /// A well-formed code exchange for each provider with the right client authentication.
    func exchange(
        _ provider: SandboxProvider, code: String, verifier: String? = nil, redirectURI: String? = nil
    ) async throws -> Reply {
        var fields: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", redirectURI ?? Self.redirectURI(provider)),
        ]
        if let verifier { fields.append(("code_verifier", verifier)) }
        switch provider {
        case .apple:
            return try await post(
                Self.tokenPath(.apple),
                form: fields + [("client_id", Self.appleClientID), ("client_secret", try appleClientSecret())])
        case .google:
            return try await post(
                Self.tokenPath(.google),
                form: fields + [("client_id", Self.googleClientID), ("client_secret", Self.secret)])
        case .facebook:
            var query: [(String, String)] = [
                ("client_id", Self.facebookClientID), ("client_secret", Self.secret),
                ("redirect_uri", redirectURI ?? Self.redirectURI(.facebook)), ("code", code),
            ]
            if let verifier { query.append(("code_verifier", verifier)) }
            return try await get(Self.tokenPath(.facebook), query)
        case .x:
            return try await post(Self.tokenPath(.x), form: fields, headers: Self.basic(Self.xClientID, Self.secret))
        case .microsoft:
            return try await post(
                Self.tokenPath(.microsoft),
                form: fields + [("client_id", Self.microsoftClientID), ("client_secret", Self.secret)])
        case .github:
            return try await post(
                Self.tokenPath(.github),
                form: fields + [("client_id", Self.githubClientID), ("client_secret", Self.secret)],
                headers: ["Accept": "application/json"])
        }
    }

    static func basic(_ user: String, _ password: String) -> HTTPHeaders {
        let encoded = Data((FormURLEncoding.escape(user) + ":" + FormURLEncoding.escape(password)).utf8)
            .base64EncodedString()
        return ["Authorization": "Basic " + encoded]
    }

    // MARK: - Apple client secrets

    /// A correct client secret, optionally with claims or header changed, signed by `key` (default: the registered one).
    func appleClientSecret(
        claims overrides: [String: JSONValue?] = [:], keyID: String = SandboxHarness.appleKeyID, key: JWK? = nil,
        algorithm: JWSAlgorithm = .es256
    ) throws -> String {
        let issuedAt = Int64(clock.now().timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(Self.teamID), "sub": .string(Self.appleClientID),
            "aud": .string("https://appleid.apple.com"), "iat": .integer(issuedAt), "exp": .integer(issuedAt + 3600),
        ]
        for (name, value) in overrides { claims[name] = value }
        let signingKey = try (key ?? appleClientKey).with(keyID: keyID)
        return try JWS.sign(
            payload: Array(JSONValue.object(claims).serialized().utf8), key: signingKey, algorithm: algorithm)
    }

    // MARK: - Verification

    /// Fetches the provider's JWKS over the transport and verifies `token` with AuthFlowJOSE.
    func verifyIDToken(
        _ token: String, provider: SandboxProvider, audience: String, nonce: String? = nil
    ) async throws -> JWTClaims {
        let jwksPath =
            switch provider {
            case .apple: "/apple/auth/keys"
            case .google: "/google/oauth2/v3/certs"
            case .microsoft: "/microsoft/common/discovery/v2.0/keys"
            default: "/facebook/.well-known/oauth/openid/jwks/"
            }
        let jwks = try await get(jwksPath)
        #expect(jwks.status == 200)
        let keys = try JWKSet(jsonData: jwks.body)
        let issuer =
            provider == .microsoft
            ? sandbox.microsoftIssuer(tenantID: SandboxMicrosoftTenant.contoso.id)
            : try #require(sandbox.issuer(for: provider))
        let verifier = JWTVerifier(
            allowedAlgorithms: [.rs256], checks: ClaimChecks(issuers: [issuer], audiences: [audience], nonce: nonce))
        return try verifier.verify(token, keys: keys, now: clock.now())
    }

    // MARK: - HTML

    static func hiddenField(_ name: String, in html: String) -> String? {
        hiddenFields(in: html).first { $0.0 == name }?.1
    }

    static func hiddenFields(in html: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        var rest = Substring(html)
        let marker = "<input type=\"hidden\" name=\""
        while let start = rest.range(of: marker) {
            rest = rest[start.upperBound...]
            guard let nameEnd = rest.firstIndex(of: "\"") else { break }
            let name = String(rest[..<nameEnd])
            rest = rest[nameEnd...]
            guard let valueStart = rest.range(of: "value=\"") else { break }
            rest = rest[valueStart.upperBound...]
            guard let valueEnd = rest.firstIndex(of: "\"") else { break }
            fields.append((unescapeHTML(name), unescapeHTML(String(rest[..<valueEnd]))))
            rest = rest[valueEnd...]
        }
        return fields
    }

    static func unescapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// Claims of a JWT without verifying it, to inspect a header or payload in a test.
func unverifiedParts(_ token: String) throws -> (header: JSONValue, payload: JSONValue) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    try #require(parts.count == 3)
    return (try JSONValue.parse(Base64URL.decode(parts[0])), try JSONValue.parse(Base64URL.decode(parts[1])))
}

/// Deterministic randomness for PKCE in tests.
struct CountingRandom: SecureRandom {
    let seed: UInt8
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ Int(seed)) } }
}
