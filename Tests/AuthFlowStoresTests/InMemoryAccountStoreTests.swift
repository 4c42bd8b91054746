import AuthFlowJOSE
import AuthFlowStores
import Foundation
import Testing

/// What only the in-memory stores show: the pending-profile cap.
@Suite struct InMemoryAccountStoreTests {
    @Test func capsLivePendingProfilesUntilSomeExpire() async throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let clock = ManualClock(start)
        let store = InMemoryAccountStore(clock: clock, pendingCapacity: 2)
        for key in ["a", "b"] {
            try await store.putPendingProfile(
                PendingProfile(key: key, provider: "apple", firstName: key, lastName: nil, expiresAt: start + 60))
        }
        let third = PendingProfile(key: "c", provider: "apple", firstName: "c", lastName: nil, expiresAt: start + 120)
        do {
            try await store.putPendingProfile(third)
            Issue.record("stored more pending profiles than the cap")
        } catch {
            #expect(error.code == .capacityExceeded)
        }
        clock.advance(by: 60)
        try await store.putPendingProfile(third)
        #expect(try await store.takePendingProfile(key: "c") == third)
    }
}
