/// A Sign in with Apple server-to-server notification event, as Apple POSTs it to the app's
/// notification URL: `{"payload": "<JWS>"}` whose `events` claim is a JSON string holding this one event.
package struct AppleNotificationEvent: Sendable, Hashable {
    /// The event types Apple sends (exact spellings: note `account-delete`).
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The user turned off forwarding to their private relay address.
        case emailDisabled = "email-disabled"
        /// The user turned forwarding back on.
        case emailEnabled = "email-enabled"
        /// The user stopped using Sign in with Apple with the app.
        case consentRevoked = "consent-revoked"
        /// The user deleted their Apple Account; the `sub` is dead.
        case accountDelete = "account-delete"
    }

    /// What happened.
    package var kind: Kind
    /// The user's `sub`.
    package var subject: String
    /// The client (Services ID / bundle ID) the notification is for; it becomes the JWS `aud`.
    package var clientID: String
    /// The relay address concerned (email events).
    package var email: String?
    /// Whether `email` is a private relay address (email events); sent as the string `"true"`/`"false"`.
    package var isPrivateEmail: Bool?

    /// Creates an event. For the email events, `email` defaults to nothing; pass the relay address.
    package init(kind: Kind, subject: String, clientID: String, email: String? = nil, isPrivateEmail: Bool? = nil) {
        self.kind = kind
        self.subject = subject
        self.clientID = clientID
        self.email = email
        self.isPrivateEmail = isPrivateEmail
    }
}

/// The outcome of delivering a notification: the receiver's HTTP status and the notification's `jti`.
package struct AppleNotificationDelivery: Sendable, Hashable {
    /// The HTTP status the receiving server answered with.
    package let status: Int
    /// The `jti` of the delivered JWS, to correlate with the receiver's idempotency records.
    package let jti: String
}
