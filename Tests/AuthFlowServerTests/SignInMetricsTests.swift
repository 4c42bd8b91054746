import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import Testing

@testable import AuthFlowServer

/// The Prometheus series a real sign-in moves (against the sandbox, through a loopback fault proxy): the
/// outcome, the duration, each provider request by endpoint and status, the key-set fetches and stale keys.
@Suite("Metrics of real sign-ins")
struct SignInMetricsTests {
    static let googleToken = "/google/token"
    static let googleKeys = "/google/oauth2/v3/certs"

    func withMetrics(_ body: (TestDeployment, FaultyProvider) async throws -> Void) async throws {
        try await TestDeployment.withFaultyProvider(
            httpTimeout: 5, configure: { $0.metrics = try ServerMetrics(providers: $0.providers) }, body)
    }

    /// The value of one series in the server's `/metrics` text (nil when the series is absent).
    func value(_ app: TestDeployment, _ series: String) -> Double? {
        let request = HTTPServerRequest(method: "GET", path: "/metrics", remoteAddress: "127.0.0.1")
        let text = String(decoding: app.server.metricsResponse(request).body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    @Test func aSignInCountsItsOutcomeDurationProviderRequestsAndKeyFetch() async throws {
        try await withMetrics { app, _ in
            let signIn1 = try await app.signIn(TestBrowser(), provider: "google", as: People.alice)
            #expect(signIn1.status == 302)
            #expect(value(app, #"authflow_sign_ins_total{provider="google",intent="login",outcome="success"}"#) == 1)
            #expect(value(app, #"authflow_sign_in_duration_seconds_count{provider="google"}"#) == 1)
            #expect(
                value(app, #"authflow_provider_requests_total{provider="google",endpoint="token",status="200"}"#) == 1)
            #expect(
                value(app, #"authflow_provider_request_duration_seconds_count{provider="google",endpoint="token"}"#)
                    == 1)
            #expect(value(app, #"authflow_jwks_fetches_total{provider="google",reason="cold"}"#) == 1)
            #expect(value(app, #"authflow_jwks_stale_served_total{provider="google"}"#) == 0)
            // A second sign-in uses the cached keys: no new fetch.
            let signIn2 = try await app.signIn(TestBrowser(), provider: "google", as: People.bob)
            #expect(signIn2.status == 302)
            #expect(value(app, #"authflow_sign_ins_total{provider="google",intent="login",outcome="success"}"#) == 2)
            #expect(value(app, #"authflow_jwks_fetches_total{provider="google",reason="cold"}"#) == 1)
        }
    }

    @Test func aFailedCallbackIsCountedUnderItsErrorCode() async throws {
        try await withMetrics { app, faults in
            faults.set(
                Self.googleToken,
                .answer(status: 500, headers: [("Content-Type", "application/json")], body: Array("{}".utf8)))
            let refused = try await app.signIn(TestBrowser(), provider: "google", as: People.alice)
            #expect(errorCode(refused) == "token_endpoint_error")
            #expect(
                value(
                    app, #"authflow_sign_ins_total{provider="google",intent="unknown",outcome="token_endpoint_error"}"#)
                    == 1)
            #expect(
                value(app, #"authflow_provider_requests_total{provider="google",endpoint="token",status="500"}"#) == 1)
            #expect(value(app, #"authflow_sign_ins_total{provider="google",intent="login",outcome="success"}"#) == 0)
        }
    }

    @Test func staleKeysServedWhileTheKeySetFailsAreCounted() async throws {
        try await withMetrics { app, faults in
            let signIn3 = try await app.signIn(TestBrowser(), provider: "google", as: People.alice)
            #expect(signIn3.status == 302)
            faults.set(Self.googleKeys, .answer(status: 500, headers: [], body: []))
            app.clock.advance(by: 3600)
            let signIn4 = try await app.signIn(TestBrowser(), provider: "google", as: People.bob)
            #expect(signIn4.status == 302)
            #expect(value(app, #"authflow_jwks_stale_served_total{provider="google"}"#) == 1)
            #expect(value(app, #"authflow_jwks_fetches_total{provider="google",reason="expired"}"#) == 1)
            #expect(
                value(app, #"authflow_provider_requests_total{provider="google",endpoint="jwks",status="500"}"#) == 1)
        }
    }
}
