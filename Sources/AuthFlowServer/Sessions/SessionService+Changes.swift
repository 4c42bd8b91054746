import AuthFlow
import AuthFlowHTTP
import Synchronization

/// The changes the running route noted, for the session cache to forget once the route finished.
final class SessionChangeLog: Sendable {
    private let noted = Mutex(SessionChanges())

    func note(_ update: (inout SessionChanges) -> Void) { noted.withLock { update(&$0) } }

    var changes: SessionChanges { noted.withLock { $0 } }

    /// The log of the route this task runs, inside ``SessionService/changing(_:)``.
    @TaskLocal static var current: SessionChangeLog?
}

extension SessionService {
    /// Records `event` in the audit trail, when one is configured (`server.audit_log`).
    func audit(_ event: AuditEvent) { options.audit?.record(event) }

    /// Runs a route that may change sessions or accounts; what it notes (``noteChanged(session:)`` and its
    /// siblings) is forgotten by the session cache once it has finished, answered or thrown. Other routes leave
    /// the cache alone.
    func changing(
        _ route: () async throws(ServerError) -> HTTPServerResponse
    ) async throws(ServerError) -> HTTPServerResponse {
        let log = SessionChangeLog()
        let result = await SessionChangeLog.$current.withValue(log) {
            () async -> Result<HTTPServerResponse, ServerError> in
            do throws(ServerError) {
                return .success(try await route())
            } catch {
                return .failure(error)
            }
        }
        cache.invalidate(log.changes)
        return try result.get()
    }

    /// Notes that the session `id` changes (with every cached session of its user).
    func noteChanged(session id: String) {
        note { $0.sessions.insert(id) }
    }

    /// Notes that user `user`, or its sessions, change.
    func noteChanged(user: UserID) {
        note { $0.users.insert(user) }
    }

    /// Notes that identity `identity`, or the sessions signed in with it, change.
    func noteChanged(identity: IdentityKey) {
        note { $0.identities.insert(identity) }
    }

    /// Adds to the running route's log; outside ``changing(_:)`` the cache forgets it at once.
    private func note(_ update: (inout SessionChanges) -> Void) {
        if let log = SessionChangeLog.current {
            log.note(update)
        } else {
            var changes = SessionChanges()
            update(&changes)
            cache.invalidate(changes)
        }
    }
}
