import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Cookies, origin checks, negotiation and the bounce page")
struct ServerPieceTests {
    let cookie = FlowCookie(secret: Array("a-server-secret-of-at-least-32-bytes!".utf8))
    let binding = Base64URL.encode([UInt8](repeating: 42, count: 32))

    @Test func flowCookieOpensWhatItSealed() {
        #expect(cookie.open(cookie.seal(binding)) == binding)
    }

    @Test func flowCookieRefusesTamperingAndOtherKeys() {
        let sealed = cookie.seal(binding)
        let other = FlowCookie(secret: Array("another-server-secret-of-32-bytes-plus".utf8))
        #expect(other.open(sealed) == nil)
        let otherBinding = Base64URL.encode([UInt8](repeating: 43, count: 32))
        let parts = sealed.split(separator: ".")
        #expect(cookie.open("v1.\(otherBinding).\(parts[2])") == nil)
        #expect(cookie.open("v2.\(parts[1]).\(parts[2])") == nil)
        #expect(cookie.open("v1.\(parts[1])") == nil)
        #expect(cookie.open("v1.short.\(parts[2])") == nil)
        #expect(cookie.open(String(repeating: "v", count: 300)) == nil)
        #expect(cookie.open(nil) == nil)
        #expect(cookie.open("") == nil)
    }

    @Test func cookiesAreSecureExceptOnPlainHTTPLoopback() {
        let https = CookiePolicy(publicURL: "https://app.example.com")
        #expect(https.secure)
        #expect(https.sessionCookieName == "__Host-authflow_session")
        let set = https.sessionCookie("abc", maxAge: 60)
        #expect(set == "__Host-authflow_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure")
        #expect(https.flowCookie("v").contains("Path=/auth/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure"))
        for local in ["http://localhost:8080", "http://127.0.0.1:9000", "http://[::1]:80", "http://app.localhost"] {
            #expect(!CookiePolicy(publicURL: local).secure, "\(local)")
        }
        #expect(CookiePolicy(publicURL: "http://app.example.com").secure)
        #expect(CookiePolicy(publicURL: "http://localhost.evil.example").secure)
        #expect(https.clearedSessionCookie().contains("Max-Age=0"))
    }

    func request(_ headers: HTTPHeaders) -> HTTPServerRequest {
        HTTPServerRequest(method: "POST", path: "/auth/logout", headers: headers)
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

    @Test func bouncePageEscapesFieldsAndAllowsOnlyItsOwnScript() {
        let page = BouncePage.page(
            action: "/auth/apple/callback",
            fields: [("state", "s\"><script>x</script>"), ("user", "{\"name\":\"O'Hara\"}"), ("authflow_bounce", "1")])
        #expect(!page.contains("<script>x</script>"))
        #expect(page.contains("value=\"s&quot;&gt;&lt;script&gt;x&lt;/script&gt;\""))
        #expect(page.components(separatedBy: "name=\"authflow_bounce\"").count == 2)
        #expect(page.contains("<script>\(BouncePage.script)</script>"))
        let csp = BouncePage.contentSecurityPolicy(formTargets: [])
        #expect(csp.contains("script-src \(BouncePage.scriptHash);"))
        #expect(csp.contains("form-action 'self';"))
        #expect(BouncePage.scriptHash.hasPrefix("'sha256-") && BouncePage.scriptHash.hasSuffix("='"))
    }
}
