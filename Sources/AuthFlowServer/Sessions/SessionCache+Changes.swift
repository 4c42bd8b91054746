import AuthFlow
import Foundation
import Synchronization

extension SessionCache {
    /// Remembers `session`, read from the stores after ``epoch()`` returned `epoch`; ignored when a change
    /// happened since.
    func store(_ session: CurrentSession, id: String, epoch: UInt64, now: Date) {
        guard isEnabled else { return }
        let entry = entry(session, storedAt: now)
        state.withLock { state in
            guard state.epoch == epoch else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[id] = entry
        }
    }

    /// Forgets every entry and refuses entries read before now.
    func invalidateAll() {
        guard isEnabled else { return }
        state.withLock { state in
            state.epoch &+= 1
            state.entries.removeAll(keepingCapacity: true)
        }
    }

    /// Forgets the entries `changes` names and refuses every entry read before now (a read racing the change
    /// may hold what it changed).
    func invalidate(_ changes: SessionChanges) {
        guard isEnabled, !changes.isEmpty else { return }
        state.withLock { state in
            state.epoch &+= 1
            var users = changes.users
            // A session's whole user goes: the user's other sessions may be what the route ended too.
            for id in changes.sessions {
                if let entry = state.entries.removeValue(forKey: id) { users.insert(entry.session.record.userID) }
            }
            guard !users.isEmpty || !changes.identities.isEmpty else { return }
            // An identity with an empty subject stands for every subject of its provider (a logout by the provider's
            // `sid` alone, as the session store reads it).
            let wholeProviders = Set(changes.identities.filter(\.subject.isEmpty).map(\.provider))
            state.entries = state.entries.filter { _, entry in
                !users.contains(entry.session.record.userID)
                    && !changes.identities.contains(entry.session.record.identity)
                    && !changes.identities.contains(entry.session.identity.key)
                    && !wholeProviders.contains(entry.session.record.provider)
            }
        }
    }
}

/// What one request changed, or is about to change, that cached sessions may reflect: sessions by id, users
/// and identities. Routes add to it before they change the stores; the server invalidates it once they finish.
struct SessionChanges: Sendable {
    var sessions: Set<String> = []
    var users: Set<UserID> = []
    var identities: Set<IdentityKey> = []

    var isEmpty: Bool { sessions.isEmpty && users.isEmpty && identities.isEmpty }
}
