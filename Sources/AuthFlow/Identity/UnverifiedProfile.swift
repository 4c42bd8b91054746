/// Profile data that arrived with the callback without a signature (Apple's first-login `user` field).
///
/// Display data only: never use it to identify the user or to link accounts. Apple sends it once, on the
/// user's first authorization, so the server must store it before anything else can fail. The email in
/// Apple's `user` JSON is deliberately dropped: the email is taken from the verified id_token only.
public struct UnverifiedProfile: Sendable, Hashable {
    /// The configured provider name.
    public let provider: String
    /// The given name, if sent.
    public let firstName: String?
    /// The family name, if sent.
    public let lastName: String?

    /// Creates a profile.
    public init(provider: String, firstName: String?, lastName: String?) {
        self.provider = provider
        self.firstName = firstName
        self.lastName = lastName
    }

    /// First and last name joined by a space, or `nil` when neither was sent.
    public var displayName: String? {
        let parts = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
