/// How a session's token travels: a browser's session cookie, or a native app's bearer token.
///
/// Both live in one ``SessionStore`` (stored as digests, ended by the same deletes), so logout, account
/// deletion and provider events end either kind; a token is only accepted the way its kind travels.
public enum SessionKind: String, Sendable, Hashable, CaseIterable {
    /// The session cookie of a browser sign-in.
    case cookie
    /// `Authorization: Bearer` of a native sign-in (`POST /auth/{provider}/native`).
    case bearer
}
