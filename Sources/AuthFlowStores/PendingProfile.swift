public import Foundation

/// Apple's first-login name, parked before the token exchange so it survives any later failure.
///
/// Apple sends the `user` field (unsigned) only on the user's first authorization. The server writes it
/// with ``ProviderEventStore/putPendingProfile(_:)`` keyed by the flow's `state` before anything else can fail,
/// and takes it with ``ProviderEventStore/takePendingProfile(key:)`` once the id_token is verified. It is display
/// data only, never used to identify or link a user; it carries no email address.
public struct PendingProfile: Sendable, Hashable {
    /// The lookup key, normally the flow's `state`.
    public let key: String
    /// The configured provider name.
    public let provider: String
    /// The given name, if sent.
    public let firstName: String?
    /// The family name, if sent.
    public let lastName: String?
    /// When the record may be discarded.
    public let expiresAt: Date

    /// Creates a pending profile.
    public init(key: String, provider: String, firstName: String?, lastName: String?, expiresAt: Date) {
        self.key = key
        self.provider = provider
        self.firstName = firstName
        self.lastName = lastName
        self.expiresAt = expiresAt
    }

    /// First and last name joined by a space, or `nil` when neither was sent.
    package var displayName: String? {
        let parts = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
