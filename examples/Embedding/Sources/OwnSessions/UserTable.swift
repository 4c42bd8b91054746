import AuthFlowProviders

/// The application's user table (in memory here; a database table in a real backend).
actor UserTable {
    /// One user, known by the provider identity it signed in with.
    struct User: Sendable {
        /// The application's own user id.
        let id: String
        /// The provider name.
        let provider: String
        /// The provider's stable subject.
        let subject: String
        /// The latest display name.
        var name: String?
        /// The latest verified email.
        var email: String?
    }

    private var users: [String: User] = [:]
    private var byIdentity: [String: String] = [:]

    /// The user of `identity`, created on first sign-in and updated on later ones. Only a verified email
    /// is kept.
    func signIn(_ identity: VerifiedIdentity) -> User {
        let key = "\(identity.provider)\u{0}\(identity.subject)"
        let email = identity.emailVerified ? identity.email : nil
        if let id = byIdentity[key], var user = users[id] {
            user.name = identity.name ?? user.name
            user.email = email ?? user.email
            users[id] = user
            return user
        }
        let user = User(
            id: "u\(users.count + 1)", provider: identity.provider, subject: identity.subject, name: identity.name,
            email: email)
        users[user.id] = user
        byIdentity[key] = user.id
        return user
    }

    /// The user with id `id`.
    func user(_ id: String) -> User? { users[id] }
}
