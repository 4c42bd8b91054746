import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

/// The bound on what the sandbox remembers: by default at most 10,000 codes (and consent tickets) at once,
/// so a client cannot grow its memory without limit; a load test may raise it, never by default.
@Suite("Sandbox limits")
struct SandboxLimitsTests {
    typealias H = SandboxHarness

    /// Asks for `count` codes with auto-consent (one authorize request each); returns the statuses seen.
    static func issueCodes(_ harness: H, count: Int) async throws -> [Int: Int] {
        var statuses: [Int: Int] = [:]
        for index in 0..<count {
            let query = H.authorizationQuery(.google, state: "st-\(index)")
            statuses[try await harness.get(H.authorizePath(.google), query).status, default: 0] += 1
        }
        return statuses
    }

    static func autoConsenting(_ harness: H) -> H {
        harness.sandbox.setAutoConsent(SandboxIdentity(subject: "limit-1", email: "limit@example.com"), for: .google)
        return harness
    }

    @Test func theDefaultRefusesTheCodePastTenThousand() async throws {
        #expect(SandboxConfiguration().maximumPendingEntries == 10_000)
        let harness = Self.autoConsenting(try H())
        #expect(try await Self.issueCodes(harness, count: 10_000) == [302: 10_000])
        let refused = try await harness.get(H.authorizePath(.google), H.authorizationQuery(.google))
        #expect(refused.status == 503)
        #expect(refused.text.contains("temporarily_unavailable"))
        // Still refused a minute later: codes are remembered past their lifetime to recognise replays.
        harness.clock.advance(by: 60)
        #expect(try await harness.get(H.authorizePath(.google), H.authorizationQuery(.google)).status == 503)
    }

    @Test func aRaisedLimitAdmitsMoreCodesAndStillRefusesPastIt() async throws {
        let harness = Self.autoConsenting(try H(maximumPendingEntries: 10_050))
        #expect(try await Self.issueCodes(harness, count: 10_050) == [302: 10_050])
        let refused = try await harness.get(H.authorizePath(.google), H.authorizationQuery(.google))
        #expect(refused.status == 503)
        #expect(refused.text.contains("temporarily_unavailable"))
    }

    @Test func theLimitBoundsConsentTicketsToo() async throws {
        let harness = try H(maximumPendingEntries: 3)
        for _ in 0..<3 {
            #expect(try await harness.get(H.authorizePath(.google), H.authorizationQuery(.google)).status == 200)
        }
        #expect(try await harness.get(H.authorizePath(.google), H.authorizationQuery(.google)).status == 503)
    }

    @Test func aLimitBelowOneCountsAsOne() async throws {
        let harness = Self.autoConsenting(try H(maximumPendingEntries: 0))
        #expect(try await Self.issueCodes(harness, count: 2) == [302: 1, 503: 1])
    }
}
