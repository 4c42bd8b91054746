import AuthFlow
import AuthFlowJOSE
import Foundation

/// One WebAuthn ceremony the server started (`register/options`, `authenticate/options`) and finishes
/// (`register`, `authenticate`): what it is for, the challenge the authenticator signs, and for a registration
/// the user the new credential is for. It travels to the client sealed (``PasskeyCeremonySeal``) and comes back
/// with the credential; nothing is stored until then.
struct PasskeyCeremony: Sendable, Hashable {
    /// Which ceremony: a registration (`navigator.credentials.create`) or an authentication (`get`).
    enum Kind: String, Sendable, Hashable {
        case registration, authentication
    }

    /// The user a registration is for.
    struct User: Sendable, Hashable {
        /// The WebAuthn user handle (`user.id`): random, 1 to 64 bytes, one per user and passkey provider.
        var handle: [UInt8]
        /// `user.name`.
        var name: String
        /// `user.displayName`.
        var displayName: String
        /// The signed-in user the passkey joins; `nil` for a sign-up.
        var userID: UserID?
    }

    var kind: Kind
    /// The provider's name (`providers.<name>`).
    var provider: String
    /// The challenge, 32 random bytes.
    var challenge: [UInt8]
    /// When it was issued (whole seconds since 1970).
    var issuedAt: Date
    /// When it stops being accepted.
    var expiresAt: Date
    /// For a registration, the user; `nil` for an authentication.
    var user: User?

    /// The key that makes it single-use in the spent-state set (``FlowStore``): its challenge, under a prefix of
    /// its own.
    var spentKey: String { "passkey-ceremony " + Base64URL.encode(challenge) }
}
