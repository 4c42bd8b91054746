import AuthFlow
import AuthFlowJOSE
import Synchronization

/// The recent sign-in traces the demo page shows: the start step by state until the callback arrives,
/// then the whole trace by session. Bounded (oldest dropped first); only used with the demo page, since a
/// second server instance would not see it.
final class TraceLog: Sendable {
    private struct Entries {
        var values: [String: [TraceEvent]] = [:]
        var order: [String] = []

        mutating func put(_ key: String, _ trace: [TraceEvent], capacity: Int) {
            if values.updateValue(trace, forKey: key) == nil { order.append(key) }
            while order.count > capacity {
                values[order.removeFirst()] = nil
            }
        }

        mutating func take(_ key: String) -> [TraceEvent]? {
            guard let trace = values.removeValue(forKey: key) else { return nil }
            order.removeAll { $0 == key }
            return trace
        }
    }

    static let capacity = 256
    private let starts = Mutex(Entries())
    private let sessions = Mutex(Entries())

    func rememberStart(state: String, trace: [TraceEvent]) {
        starts.withLock { $0.put(state, trace, capacity: Self.capacity) }
    }

    func takeStart(state: String) -> [TraceEvent] {
        starts.withLock { $0.take(state) } ?? []
    }

    func rememberSession(digest: String, trace: [TraceEvent]) {
        sessions.withLock { $0.put(digest, trace, capacity: Self.capacity) }
    }

    func session(digest: String) -> [TraceEvent]? {
        sessions.withLock { $0.values[digest] }
    }

    /// Base64url SHA-256 of a session id (how the trace log keys sessions).
    static func digest(_ id: String) -> String {
        Base64URL.encode(Digest.sha256(Array(id.utf8)))
    }
}
