/// A change to a linked identity's profile fields and to whether sign-in with it is disabled; `nil` fields keep
/// the stored value.
///
/// A known value is never overwritten with `nil`: a later Apple sign-in without the first-login `user`
/// field keeps the stored name. Setting ``email`` to a different address without ``emailVerified``
/// stores the new address as unverified, so a stale verification never carries over to a new address.
public struct IdentityProfileUpdate: Sendable, Hashable {
    /// The new email address; `nil` keeps the stored one.
    public var email: String?
    /// Whether the email address is verified; `nil` keeps the stored flag (unless ``email`` changes).
    public var emailVerified: Bool?
    /// Whether the address is a private relay address; `nil` keeps the stored flag.
    public var isPrivateEmail: Bool?
    /// Whether mail to the address is no longer delivered (Apple `email-disabled` / `email-enabled`);
    /// `nil` keeps the stored flag.
    public var emailDisabled: Bool?
    /// The new display name; `nil` keeps the stored one.
    public var name: String?
    /// Whether sign-in with the identity is disabled (``LinkedIdentity/isDisabled``); `nil` keeps the stored flag.
    public var disabled: Bool?

    /// Creates an update; every field defaults to "keep".
    public init(
        email: String? = nil, emailVerified: Bool? = nil, isPrivateEmail: Bool? = nil, emailDisabled: Bool? = nil,
        name: String? = nil, disabled: Bool? = nil
    ) {
        self.email = email
        self.emailVerified = emailVerified
        self.isPrivateEmail = isPrivateEmail
        self.emailDisabled = emailDisabled
        self.name = name
        self.disabled = disabled
    }
}
