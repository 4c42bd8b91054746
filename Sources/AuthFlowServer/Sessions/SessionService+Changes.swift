import AuthFlow
import AuthFlowHTTP
import Synchronization

/// What one route (or one server operation) notes it changes, for the session cache to forget once it finished.
/// ``SessionService/changing(_:)`` makes one and passes it to the code that changes sessions or accounts, which
/// notes into it before it changes the stores.
final class SessionChangeLog: Sendable {
    private let noted = Mutex(SessionChanges())

    /// What was noted so far.
    var changes: SessionChanges { noted.withLock { $0 } }

    /// Notes that the session `id` changes (with every cached session of its user).
    func noteChanged(session id: String) {
        noted.withLock { _ = $0.sessions.insert(id) }
    }

    /// Notes that user `user`, or its sessions, change.
    func noteChanged(user: UserID) {
        noted.withLock { _ = $0.users.insert(user) }
    }

    /// Notes that identity `identity`, or the sessions signed in with it, change.
    func noteChanged(identity: IdentityKey) {
        noted.withLock { _ = $0.identities.insert(identity) }
    }
}

extension SessionService {
    /// Records `event` in the audit trail, when one is configured (`server.audit_log`).
    func audit(_ event: AuditEvent) { options.audit?.record(event) }

    /// Runs `body`, a route or operation that may change sessions or accounts, with a fresh ``SessionChangeLog``;
    /// what it notes there is forgotten by the session cache once it has finished, answered or thrown.
    func changing<T, Failure: Error>(
        _ body: (SessionChangeLog) async throws(Failure) -> T
    ) async throws(Failure) -> T {
        let log = SessionChangeLog()
        defer { cache.invalidate(log.changes) }
        return try await body(log)
    }
}
