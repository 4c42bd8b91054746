import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Cookies, origin checks, negotiation and the bounce page")
struct ServerPieceTests {
    static let secret = Array("a-server-secret-of-at-least-32-bytes!".utf8)
    let policy = CookiePolicy(publicURL: "https://app.example.com")

    func jar(_ secret: [UInt8] = Self.secret) throws -> ServerFlowCookies {
        ServerFlowCookies(seal: try FlowRecordSeal(secret: secret, random: SystemRandom()), policy: policy)
    }

    func record(_ state: String, provider: String = "google", at seconds: Double = 1_750_000_000) -> FlowRecord {
        FlowRecord(
            provider: provider, state: state, nonce: "n", pkceVerifier: "v", returnTo: "/", browserBindingDigest: "d",
            intent: .login, createdAt: Date(timeIntervalSince1970: seconds))
    }

    func callback(cookies: [String], state: String) -> HTTPServerRequest {
        HTTPServerRequest(
            method: "GET", path: "/auth/google/callback", query: [("state", state)],
            headers: HTTPHeaders(cookies.map { ("Cookie", $0) }), remoteAddress: "127.0.0.1")
    }

    /// `name=value` of a `Set-Cookie` line.
    func pair(_ setCookie: String) -> String { String(setCookie.prefix { $0 != ";" }) }

    @Test func flowCookieCarriesTheSealedRecordUnderANamePerState() throws {
        let jar = try jar()
        let set = try jar.setCookie(for: record("state-1"), lifetime: 600)
        let name = jar.name(of: record("state-1"))
        #expect(!name.contains("state-1"))
        #expect(jar.name(of: record("state-2")) != name)
        // The prefix, the provider, the first 8 base64url characters of SHA-256("authflow flow-cookie name " +
        // state), and the start's time in seconds.
        let digest = Digest.sha256(Array("authflow flow-cookie name state-1".utf8))
        #expect(name == "__Host-authflow_flow_google." + Base64URL.encode(digest).prefix(8) + ".1750000000")
        let parts = try #require(policy.flowCookieParts(name))
        #expect(parts.provider == "google" && parts.createdAt == 1_750_000_000)
        #expect(set.hasPrefix(name + "=v1."))
        #expect(set.hasSuffix("; Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure"))
        let opened = try jar.record(
            in: callback(cookies: [pair(set)], state: "state-1"), state: "state-1", provider: "google")
        #expect(opened == record("state-1"))
    }

    @Test func flowCookieNamesThatAreNotOfTheFormSayNothing() throws {
        let prefix = policy.flowCookiePrefix
        for name in [
            "authflow_session", prefix + "junk", prefix + "google.AAAAAAAA", prefix + ".AAAAAAAA.1",
            prefix + "google.AAAAAAA.1", prefix + "google.AAAAAAAA.", prefix + "google.AAAAAAAA.1x",
            prefix + "google.AAAAAAAA.12345678901", prefix + "a.b.AAAAAAAA.1",
        ] {
            #expect(policy.flowCookieParts(name) == nil, "\(name)")
        }
        let parts = try #require(policy.flowCookieParts(prefix + "my-oidc_2.AA-_zz09.42"))
        #expect(parts.provider == "my-oidc_2" && parts.createdAt == 42)
    }

    @Test func flowCookieOpensOnlyForItsStateProviderAndSecret() throws {
        let jar = try jar()
        let set = pair(try jar.setCookie(for: record("state-1"), lifetime: 600))
        #expect(
            try jar.record(in: callback(cookies: [set], state: "state-1"), state: "state-1", provider: "apple") == nil)
        #expect(
            try jar.record(in: callback(cookies: [set], state: "state-2"), state: "state-2", provider: "google") == nil)
        let other = try self.jar(Array("another-server-secret-of-32-bytes-plus".utf8))
        #expect(
            try other.record(in: callback(cookies: [set], state: "state-1"), state: "state-1", provider: "google")
                == nil)
        // The same value under another state's cookie name does not open either.
        let value = set.drop { $0 != "=" }.dropFirst()
        let renamed = jar.name(of: record("state-2")) + "=" + value
        #expect(
            try jar.record(in: callback(cookies: [renamed], state: "state-2"), state: "state-2", provider: "google")
                == nil)
        // Nor under its own name with another time (an older or newer flow in the name).
        let redated = jar.name(of: record("state-1", at: 1_750_000_001)) + "=" + value
        #expect(
            try jar.record(in: callback(cookies: [redated], state: "state-1"), state: "state-1", provider: "google")
                == nil)
    }

    @Test func aFlowCookieNameSentTwiceIsRefused() throws {
        let jar = try jar()
        let set = pair(try jar.setCookie(for: record("state-1"), lifetime: 600))
        let name = jar.name(of: record("state-1"))
        // The same name twice, or a second name for this sign-in with another time.
        let redated = jar.name(of: record("state-1", at: 1_750_000_999)) + "=tossed"
        for cookies in [[set, name + "=tossed"], [set + "; " + name + "=tossed"], [set, set], [set, redated]] {
            do throws(ServerError) {
                _ = try jar.record(
                    in: callback(cookies: cookies, state: "state-1"), state: "state-1", provider: "google")
                Issue.record("expected duplicate_cookie")
            } catch {
                #expect(error.code == .duplicateCookie)
                #expect(error.status == 400)
            }
        }
    }

    @Test func aStartDropsTheOldestFlowCookiesBeyondTheCap() throws {
        let jar = try jar()
        var cookies: [String] = []
        for index in 0..<ServerFlowCookies.maximumLive {
            cookies.append(pair(try jar.setCookie(for: record("s\(index)", at: 1000 + Double(index)), lifetime: 600)))
        }
        cookies.append(policy.flowCookiePrefix + "junk=v1.nothing")
        let request = HTTPServerRequest(
            method: "GET", path: "/auth/google/login", headers: ["Cookie": cookies.joined(separator: "; ")],
            remoteAddress: "127.0.0.1")
        let cleared = jar.evictions(in: request, providers: ["google", "apple"])
        // Five present, one more coming: keep the three newest.
        #expect(cleared.count == 2)
        #expect(cleared.allSatisfy { $0.contains("Max-Age=0") })
        let names = Set(cleared.map { String($0.prefix { $0 != "=" }) })
        #expect(names == [policy.flowCookiePrefix + "junk", jar.name(of: record("s0", at: 1000))])
        let few = HTTPServerRequest(
            method: "GET", path: "/", headers: ["Cookie": cookies[0]], remoteAddress: "127.0.0.1")
        #expect(jar.evictions(in: few, providers: ["google"]).isEmpty)
    }

    @Test func aStartChoosesTheFlowCookiesToDropByTheirNamesWithoutOpeningThem() throws {
        let jar = try jar()
        // Values that open nowhere: the age and the provider in the names decide alone.
        let newest = jar.name(of: record("s3", at: 4000))
        let unknown = jar.name(of: record("s9", provider: "retired", at: 5000))
        let cookies = [
            jar.name(of: record("s2", at: 3000)), jar.name(of: record("s0", at: 1000)), newest,
            jar.name(of: record("s1", provider: "apple", at: 2000)), unknown,
        ].map { $0 + "=v1.sealed-elsewhere" }
        let request = HTTPServerRequest(
            method: "GET", path: "/auth/google/login", headers: ["Cookie": cookies.joined(separator: "; ")],
            remoteAddress: "127.0.0.1")
        let cleared = Set(jar.evictions(in: request, providers: ["google", "apple"]).map { pair($0) })
        // A provider not configured goes first, then the oldest: three stay.
        #expect(cleared == [unknown + "=", jar.name(of: record("s0", at: 1000)) + "="])
    }

    @Test func theNewestEarlierFlowOfTheProviderIsTheOneOpened() throws {
        let jar = try jar()
        let old = pair(try jar.setCookie(for: record("s0", at: 1000), lifetime: 600))
        let new = pair(try jar.setCookie(for: record("s1", at: 2000), lifetime: 600))
        let apple = pair(try jar.setCookie(for: record("s2", provider: "apple", at: 3000), lifetime: 600))
        // A newer name whose value does not open is passed over.
        let forged = jar.name(of: record("s3", at: 2500)) + "=v1.forged"
        let request = HTTPServerRequest(
            method: "GET", path: "/auth/google/login",
            headers: ["Cookie": [old, apple, forged, new].joined(separator: "; ")], remoteAddress: "127.0.0.1")
        #expect(jar.newestRecord(in: request, provider: "google") == record("s1", at: 2000))
        #expect(jar.newestRecord(in: request, provider: "apple") == record("s2", provider: "apple", at: 3000))
        #expect(jar.newestRecord(in: request, provider: "x") == nil)
    }

    @Test func cookiesAreSecureExceptOnPlainHTTPLoopback() {
        let https = CookiePolicy(publicURL: "https://app.example.com")
        #expect(https.secure)
        #expect(https.sessionCookieName == "__Host-authflow_session")
        let set = https.sessionCookie("abc", maxAge: 60)
        #expect(set == "__Host-authflow_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure")
        #expect(
            https.flowCookie(name: "__Host-authflow_flow_x", value: "v", maxAge: 600).hasSuffix(
                "Path=/; Max-Age=600; HttpOnly; SameSite=Lax; Secure"))
        #expect(CookiePolicy(publicURL: "http://localhost:8080").flowCookiePrefix == "authflow_flow_")
        for local in ["http://localhost:8080", "http://127.0.0.1:9000", "http://[::1]:80", "http://app.localhost"] {
            #expect(!CookiePolicy(publicURL: local).secure, "\(local)")
        }
        #expect(CookiePolicy(publicURL: "http://app.example.com").secure)
        #expect(CookiePolicy(publicURL: "http://localhost.evil.example").secure)
        #expect(https.clearedSessionCookie().contains("Max-Age=0"))
    }

    func request(_ headers: HTTPHeaders) -> HTTPServerRequest {
        HTTPServerRequest(method: "POST", path: "/auth/logout", headers: headers, remoteAddress: "127.0.0.1")
    }

    @Test func originCheckAcceptsSameOriginAndNonBrowserRequests() throws {
        let check = OriginCheck(publicURL: "http://localhost:8080")
        try check.check(request(["Origin": "http://localhost:8080", "Sec-Fetch-Site": "same-origin"]))
        try check.check(request(["Sec-Fetch-Site": "none"]))
        // A same-origin POST from a page with `Referrer-Policy: no-referrer` carries `Origin: null`.
        try check.check(request(["Origin": "null", "Sec-Fetch-Site": "same-origin"]))
        try check.check(request(["Referer": "http://localhost:8080/page"]))
        try check.check(request([:]))
    }

    @Test(
        arguments: [
            ["Origin": "http://evil.example"], ["Origin": "null"], ["Origin": "http://localhost:8081"],
            ["Origin": "https://localhost:8080"], ["Sec-Fetch-Site": "cross-site"], ["Sec-Fetch-Site": "same-site"],
            ["Origin": "http://localhost:8080", "Sec-Fetch-Site": "cross-site"], ["Referer": "http://evil.example/"],
            ["Origin": "null", "Sec-Fetch-Site": "none"], ["Origin": "null", "Sec-Fetch-Site": "cross-site"],
            ["Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"],
        ] as [HTTPHeaders])
    func originCheckRefusesOtherOrigins(headers: HTTPHeaders) {
        let check = OriginCheck(publicURL: "http://localhost:8080")
        #expect(throws: ServerError.self) { try check.check(request(headers)) }
    }

    @Test func errorsAreHTMLOnlyWhenHTMLRanksAboveJSON() {
        #expect(ResponseFactory.prefersHTML("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"))
        #expect(ResponseFactory.prefersHTML("text/html"))
        #expect(!ResponseFactory.prefersHTML("*/*"))
        #expect(!ResponseFactory.prefersHTML(nil))
        #expect(!ResponseFactory.prefersHTML("application/json"))
        #expect(!ResponseFactory.prefersHTML("application/json, text/html;q=0.5"))
        #expect(!ResponseFactory.prefersHTML("text/html;q=0.1, application/json"))
        let html = ResponseFactory.error(
            ServerError(.invalidReturnTo, "<script>alert(1)</script>", status: 400), accept: "text/html")
        let body = String(decoding: html.body, as: UTF8.self)
        #expect(!body.contains("<script>"))
        #expect(body.contains("&lt;script&gt;"))
        let json = ResponseFactory.error(ServerError(.invalidReturnTo, "m", status: 400), accept: "*/*")
        #expect(String(decoding: json.body, as: UTF8.self) == "{\"error\":\"invalid_return_to\",\"message\":\"m\"}")
    }

    /// The JSON error body comes from `AuthFlowHTTP`'s builder and keeps the bytes `JSONValue` wrote before:
    /// every escape, `\b` and `\f` included, and UTF-8 as is.
    @Test func jsonErrorBodyIsTheBytesJSONValueWrites() {
        let message =
            "quote \" backslash \\ newline \n tab \t cr \r bs \u{8} ff \u{C} ctl \u{1}\u{1F} del \u{7F} caf\u{E9} </script>"
        let response = ResponseFactory.error(ServerError(.invalidRequest, message, status: 400), accept: nil)
        let expected = JSONValue.object(["error": .string("invalid_request"), "message": .string(message)]).serialized()
        #expect(response.body == Array(expected.utf8))
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":"invalid_request","message":"quote \" backslash \\ newline \n tab \t cr \r bs \b ff \f ctl \u0001\u001f del \#u{7F} caf\#u{E9} </script>"}"#
        )
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test func bouncePageEscapesFieldsAndAllowsOnlyItsOwnScript() {
        let page = FormPostBounce.page(
            action: "/auth/apple/callback",
            fields: [("state", "s\"><script>x</script>"), ("user", "{\"name\":\"O'Hara\"}"), ("authflow_bounce", "1")])
        #expect(!page.contains("<script>x</script>"))
        #expect(page.contains("value=\"s&quot;&gt;&lt;script&gt;x&lt;/script&gt;\""))
        #expect(page.components(separatedBy: "name=\"authflow_bounce\"").count == 2)
        #expect(page.contains("<script>\(FormPostBounce.script)</script>"))
        let csp = FormPostBounce.contentSecurityPolicy(formTargets: [])
        #expect(csp.contains("script-src \(FormPostBounce.scriptHash);"))
        #expect(csp.contains("form-action 'self';"))
        #expect(FormPostBounce.scriptHash.hasPrefix("'sha256-") && FormPostBounce.scriptHash.hasSuffix("='"))
    }
}
