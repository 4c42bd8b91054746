/// What the user asked for when the sign-in began; carried through the flow record unchanged.
public enum SignInIntent: String, Sendable, Hashable, CaseIterable {
    /// Sign in, creating the user on first sign-in when sign-up is allowed.
    case login
    /// Create a new user; an identity that already has one is refused by the server.
    case register
    /// Attach the identity to the user of the current session.
    case link
}
