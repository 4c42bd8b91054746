import AuthFlow

/// How a request presents its session: the session cookie, or `Authorization: Bearer` (native apps).
enum SessionCredential: Sendable, Equatable {
    case cookie(String)
    case bearer(String)

    /// The session id (cookie value or bearer token).
    var id: String {
        switch self {
        case .cookie(let id), .bearer(let id): id
        }
    }

    /// The kind of session the credential may open.
    var kind: SessionKind {
        switch self {
        case .cookie: .cookie
        case .bearer: .bearer
        }
    }
}

/// The signed-in browser or app of a request, checked against both stores.
struct CurrentSession: Sendable {
    /// The session cookie's value or the bearer token.
    let id: String
    /// The stored session.
    let record: SessionRecord
    /// The identity the session was signed in with, as stored now.
    let identity: LinkedIdentity
}

/// Where a session stands against `server.session_idle_timeout`.
enum IdleState: Sendable, Equatable {
    /// Used recently enough: nothing to write (or the rule is off).
    case fresh
    /// Live, but its written last use is older than the renewal interval: this use writes it.
    case due
    /// Unused for the whole timeout: it has ended.
    case idle
}
