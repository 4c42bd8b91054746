package import AuthFlowJOSE
package import Foundation

/// A ``FlowStore`` in process memory, for tests and single-instance deployments.
///
/// Keeps the digest of each spent state until its expiry plus ``FlowStoreKey/clockSkewMargin`` (from the
/// injected clock). The number of live
/// entries is capped; expired ones are purged as new ones arrive, so memory stays bounded. Only callbacks
/// whose flow cookie opened and matched add entries, and those are rate-limited by the server.
package actor InMemoryFlowStore: FlowStore, StoreBackendNaming {
    /// `"memory"`.
    package nonisolated var backendName: String { "memory" }
    private let clock: any WallClock
    private let capacity: Int
    private var spent: [String: Date] = [:]
    private var marksSincePurge = 0

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - clock: the time source for expiry.
    ///   - capacity: the most live spent states kept at once (at least 1).
    package init(clock: any WallClock, capacity: Int = 100_000) {
        self.clock = clock
        self.capacity = max(1, capacity)
    }

    /// How many spent states are stored, expired ones not yet purged included.
    package var count: Int { spent.count }

    /// Marks `state` spent until `until`.
    ///
    /// - Returns: `true` on first use, `false` when the state is already spent and not yet expired.
    /// - Throws: ``FlowStoreError`` `capacity_exceeded` when the store is full of live entries.
    package func markSpent(state: String, until: Date) throws(FlowStoreError) -> Bool {
        let now = clock.now()
        let key = FlowStoreKey.digest(of: state)
        if let expiry = spent[key], expiry > now { return false }
        marksSincePurge += 1
        if spent.count >= capacity || marksSincePurge >= 1024 {
            marksSincePurge = 0
            spent = spent.filter { $0.value > now }
        }
        guard spent.count < capacity else {
            throw FlowStoreError(
                .capacityExceeded, "expected fewer than \(capacity) live spent states, found \(capacity)")
        }
        spent[key] = FlowStoreKey.retention(until: until)
        return true
    }

    /// Always answers.
    package func checkHealth() {}
}
