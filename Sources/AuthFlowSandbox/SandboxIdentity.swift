/// A test user the consent page signs in as.
///
/// The `subject` is used verbatim as the provider's `sub` / user id, so a test can predict it.
public struct SandboxIdentity: Sendable, Hashable {
    /// The stable user identifier the provider reports (`sub`, Graph `id`, X `data.id`).
    public var subject: String
    /// The user's email address, if the user has one.
    public var email: String?
    /// Whether the provider vouches for the email address.
    public var emailVerified: Bool
    /// Apple only: whether `email` is a private relay address.
    public var isPrivateEmail: Bool
    /// The given (first) name.
    public var givenName: String?
    /// The family (last) name.
    public var familyName: String?
    /// X only: the @handle (without the @).
    public var username: String?
    /// Google only: the groups its id_token's `groups` claim lists (as a directory such as Entra ID, or a
    /// Workspace claims mapping, sends them); none when empty.
    public var groups: [String] = []

    /// Creates a test identity.
    public init(
        subject: String, email: String? = nil, givenName: String? = nil, familyName: String? = nil,
        username: String? = nil, emailVerified: Bool = true, isPrivateEmail: Bool = false
    ) {
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.givenName = givenName
        self.familyName = familyName
        self.username = username
    }

    /// The full display name, given name first; `nil` when neither part is known.
    public var name: String? {
        let parts = [givenName, familyName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The ready-made identities the consent page offers for a provider, with provider-shaped subjects
    /// (Apple `000123.<hex>.0456`, numeric ids elsewhere).
    public static func presets(for provider: SandboxProvider) -> [SandboxIdentity] {
        switch provider {
        case .apple:
            return [
                SandboxIdentity(
                    subject: "001234.8f14e45fceea167a5a36dedd4bea2543.1021", email: "alice@example.com",
                    givenName: "Alice", familyName: "Example"),
                SandboxIdentity(
                    subject: "001234.c9f0f895fb98ab9159f51fd0297e236d.1022",
                    email: "x7k2m9q4ab@privaterelay.appleid.com",
                    givenName: "Bob", familyName: "Relay", isPrivateEmail: true),
            ]
        case .google:
            return [
                SandboxIdentity(
                    subject: "109876543210123456789", email: "alice@example.com", givenName: "Alice",
                    familyName: "Example"),
                SandboxIdentity(
                    subject: "109876543210123456790", email: "bob@example.org", givenName: "Bob",
                    familyName: "Unverified",
                    emailVerified: false),
            ]
        case .facebook:
            return [
                SandboxIdentity(
                    subject: "10158234567890123", email: "alice@example.com", givenName: "Alice", familyName: "Example"),
                SandboxIdentity(subject: "10158234567890124", email: nil, givenName: "Bob", familyName: "Noemail"),
            ]
        case .x:
            return [
                SandboxIdentity(
                    subject: "1234567890123456789", email: "alice@example.com", givenName: "Alice",
                    familyName: "Example", username: "alice_example"),
                SandboxIdentity(
                    subject: "1234567890123456790", givenName: "Bob", familyName: "Poster", username: "bob_posts"),
            ]
        }
    }
}
