public import AuthFlowJOSE
import Foundation

/// A ``FlowStore`` in process memory, for tests and single-instance deployments.
///
/// Expiry follows the injected clock. The number of live records is capped so a flood of sign-in starts
/// cannot exhaust memory; expired records are purged as new ones arrive.
public actor InMemoryFlowStore: FlowStore {
    private struct Entry {
        let record: FlowRecord
        let expiresAt: Date
    }

    private let clock: any WallClock
    private let capacity: Int
    private var entries: [String: Entry] = [:]
    private var putsSincePurge = 0

    /// Creates an empty store.
    ///
    /// - Parameters:
    ///   - clock: the time source for expiry.
    ///   - capacity: the most live records kept at once (at least 1).
    public init(clock: any WallClock, capacity: Int = 100_000) {
        self.clock = clock
        self.capacity = max(1, capacity)
    }

    /// How many records are stored, expired ones not yet purged included.
    public var count: Int { entries.count }

    /// Stores `record` for `ttl` seconds.
    ///
    /// - Throws: ``FlowStoreError`` with `invalidTTL`, `duplicateState` (a live record has that state) or
    ///   `capacityExceeded`.
    public func put(_ record: FlowRecord, ttl: Double) throws(FlowStoreError) {
        guard ttl.isFinite, ttl > 0 else {
            throw FlowStoreError(.invalidTTL, "expected a positive TTL in seconds, found \(ttl)")
        }
        let now = clock.now()
        putsSincePurge += 1
        if entries.count >= capacity || putsSincePurge >= 1024 {
            purgeExpired(now: now)
        }
        if let existing = entries[record.state], existing.expiresAt > now {
            throw FlowStoreError(.duplicateState, "expected a new state, found one that is already stored")
        }
        guard entries.count < capacity else {
            throw FlowStoreError(.capacityExceeded, "expected fewer than \(capacity) live flows, found \(capacity)")
        }
        entries[record.state] = Entry(record: record, expiresAt: now.addingTimeInterval(ttl))
    }

    /// Removes and returns the live record for `state`; `nil` when unknown, taken or expired.
    public func take(state: String) -> FlowRecord? {
        guard let entry = entries.removeValue(forKey: state) else { return nil }
        return entry.expiresAt > clock.now() ? entry.record : nil
    }

    private func purgeExpired(now: Date) {
        putsSincePurge = 0
        entries = entries.filter { $0.value.expiresAt > now }
    }
}
