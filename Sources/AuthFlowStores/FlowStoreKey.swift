import AuthFlowJOSE
package import Foundation

/// How flow stores key a spent state: a digest, so a store (or its backup) never holds a usable state.
package enum FlowStoreKey {
    /// Seconds a spent state is kept beyond its flow's expiry (5 minutes): instances whose clocks differ still
    /// find it spent for as long as any of them would accept the flow. Every backend adds it.
    package static let clockSkewMargin: TimeInterval = 300

    /// When a state spent for a flow expiring at `until` may be forgotten.
    package static func retention(until: Date) -> Date { until.addingTimeInterval(clockSkewMargin) }

    /// Base64url SHA-256 of `"authflow spent-state v1 " + state` (43 characters).
    package static func digest(of state: String) -> String {
        Base64URL.encode(Digest.sha256(Array("authflow spent-state v1 \(state)".utf8)))
    }
}
