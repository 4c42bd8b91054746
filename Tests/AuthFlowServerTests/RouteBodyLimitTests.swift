import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import Foundation
import Testing

@testable import AuthFlowServer

@Suite("Route body limits: decided before the body is read, form routes parsed off the polling thread")
struct RouteBodyLimitTests {
    @Test func eachRouteDeclaresItsBodyLimit() async throws {
        try await TestDeployment.with { app in
            let server = app.server
            for path in ["/auth/logout", "/auth/google/disconnect", "/auth/account/delete"] {
                let policy = server.routePolicy(method: "POST", path: path)
                #expect(policy.maxBodyBytes == SignInServer.formBodyLimit, "\(path)")
                #expect(!policy.startsOnPollingThread, "\(path)")
            }
            #expect(server.routePolicy(method: "POST", path: "/auth/apple/callback").maxBodyBytes == 64 * 1024)
            #expect(!server.routePolicy(method: "POST", path: "/auth/apple/callback").startsOnPollingThread)
            #expect(server.routePolicy(method: "POST", path: "/auth/google/events").maxBodyBytes == 32 * 1024)
            #expect(server.routePolicy(method: "POST", path: "/auth/facebook/deauthorize").maxBodyBytes == 16 * 1024)
            for (method, path) in [
                ("GET", "/auth/check"), ("HEAD", "/auth/session"), ("GET", "/auth/google/callback"),
                ("GET", "/favicon.ico"),
            ] {
                #expect(server.routePolicy(method: method, path: path).maxBodyBytes == 0, "\(method) \(path)")
            }
            // Answered 404 or 405 with the body unread: a small one is let through so the answer says so.
            for path in ["/favicon.ico", "/auth/unknown/events", "/auth/google/login"] {
                #expect(server.routePolicy(method: "POST", path: path).maxBodyBytes == SignInServer.formBodyLimit)
            }
            #expect(server.routePolicy(method: "GET", path: "/auth/check").startsOnPollingThread)
            #expect(server.largestRouteBody == 64 * 1024)
        }
    }

    /// An app that mounts the sign-in server among its own routes (`HTTPServer(configuration:signIn:handler:)`):
    /// the sign-in routes keep their limits, the app's own paths take the listener's.
    @Test func anAppsOwnPathsTakeTheListenersLimitBesideTheSignInRoutes() async throws {
        try await TestDeployment.with { app in
            let server = app.server
            let appLimit = 256 * 1024
            for (method, path) in [("POST", "/app/upload"), ("GET", "/"), ("POST", "/favicon.ico")] {
                let policy = server.mountedRoutePolicy(method: method, path: path, otherwise: appLimit)
                #expect(policy.maxBodyBytes == appLimit, "\(method) \(path)")
                #expect(policy.startsOnPollingThread, "\(method) \(path)")
            }
            let logout = server.mountedRoutePolicy(method: "POST", path: "/auth/logout", otherwise: appLimit)
            #expect(logout.maxBodyBytes == SignInServer.formBodyLimit)
            #expect(!logout.startsOnPollingThread)
            #expect(
                server.mountedRoutePolicy(method: "POST", path: "/auth/unknown", otherwise: appLimit).maxBodyBytes
                    == SignInServer.formBodyLimit)
            #expect(server.mountedRoutePolicy(method: "GET", path: "/healthz", otherwise: appLimit).maxBodyBytes == 0)
        }
    }

    @Test func aLogoutFormOverTheLimitIsRefusedWith413AndKeepsTheSession() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let padding = String(repeating: "a&", count: 4 * 1024)  // 8 KiB of empty fields
            let big = try await browser.post(
                app.appURL + "/auth/logout", rawBody: Array((padding + "return_to=/").utf8), from: app.appURL)
            #expect(big.status == 413)
            #expect(big.text.contains("request_too_large"))
            #expect(try await app.session(browser).status == 200)
            for path in ["/auth/google/disconnect", "/auth/account/delete"] {
                let refused = try await browser.post(
                    app.appURL + path, rawBody: Array(padding.utf8), from: app.appURL)
                #expect(refused.status == 413, "\(path)")
            }
            #expect(try await app.session(browser).status == 200)
        }
    }

    @Test func aLogoutFormWithinTheLimitFindsItsReturnToAmongOtherFields() async throws {
        try await TestDeployment.with { app in
            let browser = TestBrowser()
            try await app.signIn(browser, provider: "google", as: People.alice)
            let padding = String(repeating: "a&", count: 1024)
            let logout = try await browser.post(
                app.appURL + "/auth/logout", rawBody: Array((padding + "return%5Fto=%2F&b=1").utf8), from: app.appURL)
            #expect(logout.status == 302)
            #expect(logout.location == "/")
            #expect(try await app.session(browser).status == 401)
        }
    }
}
