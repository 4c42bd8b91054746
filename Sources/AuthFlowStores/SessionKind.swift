/// How a session's token travels: a browser's session cookie, or a native app's bearer token; or
/// ``rotated``, a record of a bearer refresh chain that is no session at all.
///
/// All live in one ``SessionStore`` (stored as digests, ended by the same deletes), so logout, account
/// deletion and provider events end every kind; a token is only accepted the way its kind travels.
public enum SessionKind: String, Sendable, Hashable, CaseIterable {
    /// The session cookie of a browser sign-in.
    case cookie
    /// `Authorization: Bearer` of a native sign-in (`POST /auth/{provider}/native`).
    case bearer
    /// No session: the marker of a bearer token that a refresh replaced (kept until its refresh chain's end, so
    /// that the token presented again is seen as a reuse), or the mark of a chain ended for such a reuse. It opens
    /// nothing and is never listed as a session.
    case rotated

    /// Whether a record of this kind is a session a token may open (``cookie`` or ``bearer``).
    package var isSession: Bool { self != .rotated }
}
