import AuthFlowJOSE
import AuthFlowSQL
import AuthFlowStoreTestSupport
import AuthFlowStores
import Foundation
import Testing

@testable import AuthFlowSQLite

@Suite struct PendingProfileCapacityTests {
    @Test func capsLivePendingProfilesAndMakesRoomAsTheyExpire() async throws {
        let directory = try TemporaryDirectory()
        let clock = ManualClock(StoreHarness.start)
        let store = SQLiteAccountStore(
            database: try SQLiteDatabase(path: directory.path("pending.sqlite")),
            cipher: try TokenCipher(secret: StoreHarness.secret, random: SystemRandom()), clock: clock,
            pendingCapacity: 3)
        func profile(_ key: String) -> PendingProfile {
            PendingProfile(
                key: key, provider: "apple", firstName: "A", lastName: "B",
                expiresAt: clock.now().addingTimeInterval(60))
        }
        for index in 0..<3 { try await store.putPendingProfile(profile("k\(index)")) }
        do {
            try await store.putPendingProfile(profile("k3"))
            Issue.record("expected the cap to refuse a fourth live profile")
        } catch {
            #expect(error.code == .capacityExceeded)
        }
        #expect(try await store.takePendingProfile(key: "k0")?.firstName == "A")
        clock.advance(by: 61)
        for index in 4..<7 { try await store.putPendingProfile(profile("k\(index)")) }
        #expect(try await store.takePendingProfile(key: "k1") == nil)
    }
}
