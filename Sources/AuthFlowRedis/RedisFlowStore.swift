package import AuthFlowJOSE
package import AuthFlowStores
package import Foundation

/// A `FlowStore` (the set of spent sign-in states) in Redis, shared by every instance using the same server
/// and prefix, so a state spent on one instance is spent for all.
///
/// `markSpent(state:until:)` is one `SET <prefix>spent:<digest> 1 NX PX <ms>`: Redis sets the key only when
/// it is absent, so of concurrent callers with one state, from any instance, exactly one spends it, and the
/// key expires with the flow, `FlowStoreKey.clockSkewMargin` later. The key holds the state's digest, never
/// the state.
package struct RedisFlowStore: FlowStore, StoreBackendNaming {
    /// `"redis"`.
    package var backendName: String { "redis" }
    /// The client the store uses.
    package let client: RedisClient
    let clock: any WallClock

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - client: the Redis connection pool (shareable with the other Redis stores).
    ///   - clock: the time source the expiry is computed from.
    package init(client: RedisClient, clock: any WallClock) {
        self.client = client
        self.clock = clock
    }

    /// Records `state` as spent until `until`; `true` when this call spent it, `false` when it was already spent.
    ///
    /// - Throws: `FlowStoreError` `backend_failure` (Redis unreachable or answering an error, or an `until` not
    ///   in the future).
    package func markSpent(state: String, until: Date) async throws(FlowStoreError) -> Bool {
        let lifetime = until.timeIntervalSince(clock.now())
        guard lifetime.isFinite, lifetime > 0 else {
            throw FlowStoreError(
                .backendFailure, "expected a spent-state expiry in the future, found one at or before now")
        }
        let key = client.key("spent", digest: Array(FlowStoreKey.digest(of: state).utf8))
        let milliseconds = String(Int64(((lifetime + FlowStoreKey.clockSkewMargin) * 1000).rounded(.up)))
        let reply: RedisReply
        do {
            reply = try await client.command(
                [
                    Array("SET".utf8), key, Array("1".utf8), Array("NX".utf8), Array("PX".utf8),
                    Array(milliseconds.utf8),
                ],
                operation: "markSpent")
        } catch {
            throw FlowStoreError(.backendFailure, error.description)
        }
        switch reply {
        case .status(let text) where text == "OK": return true
        case .null: return false
        default:
            throw FlowStoreError(.backendFailure, "expected OK or nil from SET NX, found another reply")
        }
    }

    /// Checks that Redis answers.
    ///
    /// - Throws: `FlowStoreError` `backend_failure`.
    package func checkHealth() async throws(FlowStoreError) {
        do {
            try await client.checkHealth()
        } catch {
            throw FlowStoreError(.backendFailure, error.description)
        }
    }
}
