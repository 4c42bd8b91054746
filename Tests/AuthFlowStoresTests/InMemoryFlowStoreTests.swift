import AuthFlowJOSE
import AuthFlowStores
import Foundation
import Testing

@Suite struct InMemoryFlowStoreTests {
    static let start = Date(timeIntervalSince1970: 1_000)

    @Test func marksAStateSpentOnce() async throws {
        let store = InMemoryFlowStore(clock: ManualClock(Self.start))
        let until = Self.start.addingTimeInterval(600)
        #expect(try await store.markSpent(state: "s1", until: until))
        #expect(try await store.markSpent(state: "s1", until: until) == false)
        #expect(try await store.markSpent(state: "s2", until: until))
    }

    @Test func forgetsSpentStatesAfterTheirExpiryAndTheSkewMarginByTheInjectedClock() async throws {
        let clock = ManualClock(Self.start)
        let store = InMemoryFlowStore(clock: clock)
        #expect(try await store.markSpent(state: "s1", until: Self.start.addingTimeInterval(600)))
        clock.advance(by: 599 + FlowStoreKey.clockSkewMargin)
        #expect(try await store.markSpent(state: "s1", until: Self.start.addingTimeInterval(1200)) == false)
        clock.advance(by: 1)
        #expect(try await store.markSpent(state: "s1", until: Self.start.addingTimeInterval(1200)))
    }

    @Test func concurrentMarksSpendAStateOnce() async throws {
        let store = InMemoryFlowStore(clock: ManualClock(Self.start))
        let until = Self.start.addingTimeInterval(600)
        let winners = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<32 { group.addTask { (try? await store.markSpent(state: "race", until: until)) == true } }
            var count = 0
            for await won in group where won { count += 1 }
            return count
        }
        #expect(winners == 1)
    }

    @Test func capsLiveEntriesAndPurgesExpiredOnes() async throws {
        let clock = ManualClock(Self.start)
        let store = InMemoryFlowStore(clock: clock, capacity: 3)
        let until = Self.start.addingTimeInterval(60)
        for index in 0..<3 { #expect(try await store.markSpent(state: "s\(index)", until: until)) }
        do {
            _ = try await store.markSpent(state: "s3", until: until)
            Issue.record("expected the capacity to be enforced")
        } catch {
            #expect(error.code == .capacityExceeded)
        }
        clock.advance(by: 61 + FlowStoreKey.clockSkewMargin)
        #expect(try await store.markSpent(state: "s4", until: clock.now().addingTimeInterval(60)))
        #expect(await store.count == 1)
    }

    @Test func keysEntriesByADigestNotTheState() {
        let digest = FlowStoreKey.digest(of: "the-state")
        #expect(digest != "the-state")
        #expect(!digest.contains("the-state"))
        #expect(digest.count == 43)
        #expect(FlowStoreKey.digest(of: "the-state") == digest)
        #expect(FlowStoreKey.digest(of: "the-statf") != digest)
    }
}
