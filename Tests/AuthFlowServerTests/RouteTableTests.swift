import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

@testable import AuthFlowServer

/// The route table: what may authorise each route, what it accepts and how a cross-site request is refused,
/// written here a second time by hand and checked against the router over HTTP for every route, credential and
/// body type. A route added to ``RouteName`` without a row here fails ``everyRouteHasTheDecidedRule()``.
@Suite("Route table: credentials, cross-site defence and body types enforced by the router")
struct RouteTableTests {
    /// A route as a client reaches it, and what the security review decided for it.
    struct Row {
        var method: String
        var path: String
        var rule: RouteRule
    }

    static let signedIn: Set<RouteRule.Credential> = [.cookie, .bearer]

    /// One row per route; the paths name providers of ``NativeApp/settings``.
    static let rows: [RouteName: Row] = [
        .health: Row(method: "GET", path: "/healthz", rule: rule(["GET"], [], false, .none, .notNeeded)),
        .session: Row(method: "GET", path: "/auth/session", rule: rule(["GET"], signedIn, false, .none, .notNeeded)),
        .check: Row(method: "GET", path: "/auth/check", rule: rule(["GET"], signedIn, false, .none, .notNeeded)),
        .forward: Row(
            method: "GET", path: "/auth/forward", rule: rule(["GET"], signedIn, false, .none, .notNeeded)),
        .sessions: Row(method: "GET", path: "/auth/sessions", rule: rule(["GET"], signedIn, false, .none, .notNeeded)),
        .logout: Row(method: "POST", path: "/auth/logout", rule: rule(["POST"], signedIn, true, .form, .sameOrigin)),
        .loggedOut: Row(method: "GET", path: "/auth/logged-out", rule: rule(["GET"], [], true, .none, .sealedState)),
        .sessionRefresh: Row(
            method: "POST", path: "/auth/session/refresh", rule: rule(["POST"], [.bearer], true, .none, .bearerOnly)),
        .sessionsRevoke: Row(
            method: "POST", path: "/auth/sessions/revoke", rule: rule(["POST"], signedIn, true, .json, .sameOrigin)),
        .accountDelete: Row(
            method: "POST", path: "/auth/account/delete", rule: rule(["POST"], signedIn, true, .form, .sameOrigin)),
        .login: Row(
            method: "GET", path: "/auth/google/login", rule: rule(["GET"], [], false, .none, .browserBinding)),
        .register: Row(
            method: "GET", path: "/auth/google/register", rule: rule(["GET"], [], false, .none, .browserBinding)),
        .link: Row(
            method: "GET", path: "/auth/google/link", rule: rule(["GET"], [.cookie], false, .none, .browserBinding)),
        .callback: Row(
            method: "POST", path: "/auth/apple/callback",
            rule: rule(["GET", "POST"], [.cookie], true, .form, .browserBinding)),
        .disconnect: Row(
            method: "POST", path: "/auth/google/disconnect", rule: rule(["POST"], signedIn, true, .form, .sameOrigin)),
        .native: Row(
            method: "POST", path: "/auth/apple/native", rule: rule(["POST"], signedIn, true, .json, .sameOrigin)),
        .nativeNonce: Row(
            method: "POST", path: "/auth/apple/native/nonce", rule: rule(["POST"], [], false, .none, .notNeeded)),
        .providerEvent: Row(
            method: "POST", path: "/auth/apple/notifications",
            rule: rule([], [], true, .providerDeclared, .providerSignature)),
        // A passkey provider's own routes, in place of its OAuth ones.
        .passkeyRegisterOptions: Row(
            method: "POST", path: "/auth/passkey/register/options",
            rule: rule(["POST"], signedIn, false, .json, .sameOrigin)),
        .passkeyRegister: Row(
            method: "POST", path: "/auth/passkey/register", rule: rule(["POST"], signedIn, true, .json, .sameOrigin)),
        .passkeyAuthenticateOptions: Row(
            method: "POST", path: "/auth/passkey/authenticate/options",
            rule: rule(["POST"], [], false, .json, .sameOrigin)),
        .passkeyAuthenticate: Row(
            method: "POST", path: "/auth/passkey/authenticate",
            rule: rule(["POST"], signedIn, true, .json, .sameOrigin)),
        .passkeyCredentials: Row(
            method: "GET", path: "/auth/passkey/credentials", rule: rule(["GET"], signedIn, false, .none, .notNeeded)),
        .passkeyCredentialsRename: Row(
            method: "POST", path: "/auth/passkey/credentials/rename",
            rule: rule(["POST"], signedIn, true, .json, .sameOrigin)),
        .passkeyCredentialsDelete: Row(
            method: "POST", path: "/auth/passkey/credentials/delete",
            rule: rule(["POST"], signedIn, true, .json, .sameOrigin)),
    ]

    static func rule(
        _ methods: [String], _ credentials: Set<RouteRule.Credential>, _ changesState: Bool, _ body: RouteRule.Body,
        _ crossSite: RouteRule.CrossSiteDefence
    ) -> RouteRule {
        RouteRule(
            methods: methods, credentials: credentials, changesState: changesState, body: body, crossSite: crossSite)
    }

    /// How a request presents itself.
    enum Credential: CaseIterable, CustomStringConvertible {
        case none, cookieSameOrigin, cookieCrossSite, cookieSameSite, bearer
        var description: String { "\(self)" as String }
        var isCookieFromAnotherOrigin: Bool { self == .cookieCrossSite || self == .cookieSameSite }
    }

    /// The body a request carries.
    enum Body: CaseIterable {
        case json, form, textPlain
    }

    /// What the router should do before the route's own handler runs.
    enum Gate: Equatable {
        case crossOriginRefused, bearerRequired, mediaTypeRefused, passes
    }

    /// What the table says a request meets, in the router's order: cross-site defence, then body type.
    static func expectedGate(_ rule: RouteRule, _ credential: Credential, _ body: Body?) -> Gate {
        if rule.crossSite == .sameOrigin, credential.isCookieFromAnotherOrigin { return .crossOriginRefused }
        if rule.crossSite == .bearerOnly, credential != .bearer { return .bearerRequired }
        switch (rule.body, body) {
        case (.json, .form?), (.json, .textPlain?), (.json, nil): return .mediaTypeRefused
        case (.form, .json?), (.form, .textPlain?): return .mediaTypeRefused
        default: return .passes
        }
    }

    @Test func everyRouteHasTheDecidedRule() {
        for route in RouteName.allCases {
            let row = Self.rows[route]
            #expect(row != nil, "route \(route) has no row in the route table test: decide its rule")
            #expect(row.map { RouteTable.rule(for: route) == $0.rule } ?? false, "route \(route)")
            if let row {
                let segments = TestPaths.routed(row.path)
                let matched = route.isPasskeyRoute ? RouteTable.passkeyRoute(segments) : RouteTable.match(segments)
                #expect(matched == route, "\(row.path)")
            }
        }
        // Every state-changing route a cookie authorises has a defence against another site's request.
        for route in RouteName.allCases {
            let rule = RouteTable.rule(for: route)
            guard rule.changesState, rule.credentials.contains(.cookie) else { continue }
            #expect([.sameOrigin, .browserBinding].contains(rule.crossSite), "route \(route)")
        }
    }

    @Test func theRouterEnforcesTheTableForEveryRouteCredentialAndBody() async throws {
        var settings = NativeApp.settings
        settings.rateLimits = nil
        settings.providers.append("passkey")
        try await TestDeployment.with(settings) { app in
            for route in RouteName.allCases {
                let row = try #require(Self.rows[route])
                let bodies: [Body?] = row.method == "GET" ? [nil] : Body.allCases.map { $0 }
                for credential in Credential.allCases {
                    for body in bodies {
                        let response = try await Self.send(row, credential: credential, body: body, app: app)
                        let expected = Self.expectedGate(row.rule, credential, body)
                        let found = Self.gate(of: response)
                        #expect(
                            found == expected,
                            "\(route) \(credential) \(body.map { "\($0)" } ?? "no body"): expected \(expected), found \(response.status) \(response.text)"
                        )
                        #expect(response.status < 500, "\(route) \(credential): \(response.status) \(response.text)")
                    }
                }
            }
        }
    }

    /// Which of the router's refusals `response` is, or ``Gate/passes`` when the route's handler answered.
    static func gate(of response: HTTPClientResponse) -> Gate {
        switch (response.status, errorCode(response)) {
        case (403, "cross_origin_request"): .crossOriginRefused
        case (401, "not_bearer_session"): .bearerRequired
        case (415, "unsupported_media_type"): .mediaTypeRefused
        default: .passes
        }
    }

    static func send(_ row: Row, credential: Credential, body: Body?, app: TestDeployment) async throws
        -> HTTPClientResponse
    {
        var request = HTTPClientRequest(method: row.method, url: app.appURL + row.path)
        request.headers["Accept"] = "application/json"
        let port = app.appURL.split(separator: ":").last.map(String.init) ?? ""
        let cookie = "\(app.sessionCookie)=\(Base64URL.encode(Array(repeating: 7, count: 32)))"
        switch credential {
        case .none:
            break
        case .cookieSameOrigin:
            request.headers["Cookie"] = cookie
            request.headers["Origin"] = app.appURL
            request.headers["Sec-Fetch-Site"] = "same-origin"
        case .cookieCrossSite:
            request.headers["Cookie"] = cookie
            request.headers["Origin"] = "http://evil.example"
            request.headers["Sec-Fetch-Site"] = "cross-site"
        case .cookieSameSite:
            request.headers["Cookie"] = cookie
            request.headers["Origin"] = "http://sibling.localhost:\(port)"
            request.headers["Sec-Fetch-Site"] = "same-site"
        case .bearer:
            // A bearer is no ambient credential: even sent with another site's Origin it authorises.
            request.headers["Authorization"] = "Bearer \(Base64URL.encode(Array(repeating: 9, count: 32)))"
            request.headers["Origin"] = "http://evil.example"
        }
        switch body {
        case .json?:
            request.headers["Content-Type"] = "application/json"
            request.body = Array(#"{"id": "x", "intent": "link"}"#.utf8)
        case .form?:
            request.headers["Content-Type"] = "application/x-www-form-urlencoded"
            request.body = Array("id=x&intent=link".utf8)
        case .textPlain?:
            request.headers["Content-Type"] = "text/plain"
            request.body = Array(#"{"id": "x", "intent": "link"}"#.utf8)
        case nil:
            break
        }
        request.timeout = 60
        return try await CurlHTTPClient().send(request)
    }
}

/// Paths as the router sees them.
enum TestPaths {
    static func routed(_ path: String) -> [String] { SignInServer.segments(of: path) }
}
