import Foundation

/// One Sign in with Apple server-to-server event, read from a verified notification JWS.
///
/// Apple POSTs `{"payload": JWS}`; the JWS claims hold `events`, a JSON *string* with one object
/// `{"type", "sub", "event_time" (ms), "email", "is_private_email" ("true"/"false")}`.
struct AppleNotification: Sendable, Hashable {
    /// The event types Apple sends.
    enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Mail forwarding to the private relay address was turned off.
        case emailDisabled = "email-disabled"
        /// Mail forwarding was turned back on.
        case emailEnabled = "email-enabled"
        /// The user stopped using Sign in with Apple with this app.
        case consentRevoked = "consent-revoked"
        /// The user deleted their Apple Account.
        case accountDelete = "account-delete"
    }

    /// The configured name of the Apple provider the notification's `aud` belongs to.
    let provider: String
    /// The JWS `jti`: the idempotency key.
    let id: String
    /// The event type, `nil` for a type this version does not know (acknowledged, not applied).
    let kind: Kind?
    /// The raw type text.
    let type: String
    /// The user's `sub`.
    let subject: String
    /// When the event happened, if sent.
    let eventTime: Date?
    /// The email concerned (email events).
    let email: String?
    /// Whether `email` is a private relay address, if sent.
    let isPrivateEmail: Bool?

    /// Creates an event.
    init(
        provider: String, id: String, type: String, subject: String, eventTime: Date?, email: String?,
        isPrivateEmail: Bool?
    ) {
        self.provider = provider
        self.id = id
        self.kind = Kind(rawValue: type)
        self.type = type
        self.subject = subject
        self.eventTime = eventTime
        self.email = email
        self.isPrivateEmail = isPrivateEmail
    }
}
