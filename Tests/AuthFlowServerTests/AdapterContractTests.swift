import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// The adapter contract of docs/adapters.md, shown with the framework-neutral types an adapter for another
/// HTTP stack converts to and from: what breaks when an adapter gets one of its rules wrong.
@Suite("The adapter contract with framework-neutral values")
struct AdapterContractTests {
    func start(_ app: TestDeployment, from address: String) async -> HTTPServerResponse {
        await app.server.handle(
            HTTPServerRequest(
                method: "GET", path: "/auth/google/login", query: [("return_to", "/")], remoteAddress: address))
    }

    @Test func theClientAddressKeysTheRateLimitsSoEachClientHasItsOwnBucket() async throws {
        try await TestDeployment.with { app in
            var refused: HTTPServerResponse?
            for _ in 0..<200 {
                let response = await start(app, from: "198.51.100.7")
                if response.status == 429 {
                    refused = response
                    break
                }
                #expect(response.status == 302)
            }
            #expect(refused?.headers["Retry-After"] != nil)
            // Another client is not refused: an adapter passing one fixed address would refuse everybody here.
            #expect(await start(app, from: "198.51.100.8").status == 302)
        }
    }

    @Test func thePathIsMatchedAsSentWithItsEscapesAndWithoutTheQuery() async throws {
        try await TestDeployment.with { app in
            func status(_ path: String) async -> Int {
                await app.server.handle(HTTPServerRequest(method: "GET", path: path, remoteAddress: "198.51.100.9"))
                    .status
            }
            #expect(await status("/auth/google/login") == 302)
            // An escaped provider name is not decoded into a configured one.
            #expect(await status("/auth/goo%67le/login") == 400)
            // A path that still carries its query is no route: the query goes in `query`.
            #expect(await status("/auth/google/login?return_to=/") == 404)
        }
    }

    @Test func theCallbackAnswersWithSeveralSetCookieFieldsThatMustEachSurvive() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            let answer = try await app.authorize(browser, provider: "google", as: People.alice)
            guard case .get(let url) = answer, let parts = URLComponents(string: url) else {
                Issue.record("expected Google to answer with a redirect")
                return
            }
            let cookies = browser.cookies(for: app.appURL).map { "\($0.name)=\($0.value)" }
            var headers = HTTPHeaders()
            headers.add("Cookie", cookies.joined(separator: "; "))
            headers.add("Sec-Fetch-Site", "cross-site")
            let query = FormURLEncoding.decode(parts.percentEncodedQuery ?? "")
            let response = await app.server.handle(
                HTTPServerRequest(
                    method: "GET", path: parts.percentEncodedPath, query: query, headers: headers,
                    remoteAddress: "198.51.100.10"))
            #expect(response.status == 302)
            let setCookies = response.headers.values("Set-Cookie")
            // The session cookie and the spent flow cookie's removal: folding them into one field loses one.
            #expect(setCookies.count == 2)
            #expect(setCookies.contains { $0.hasPrefix(app.sessionCookie + "=") })
            #expect(setCookies.contains { $0.hasPrefix("authflow_flow_") && $0.contains("Max-Age=0") })
        }
    }
}
