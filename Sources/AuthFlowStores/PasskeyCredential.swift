package import Foundation

/// One registered passkey: the WebAuthn credential a user's authenticator holds, kept by the account store.
///
/// It belongs to the identity `(provider, subject)` whose subject is the base64url of its user handle, so it goes
/// with that identity (unlinking the provider, deleting the user). Its id is unique across every provider and
/// user: a credential id registered before, to anyone, is refused.
package struct PasskeyCredential: Sendable, Hashable {
    /// The credential id (1 to 1,023 bytes).
    package var id: [UInt8]
    /// The identity it signs in: the passkey provider's name and base64url(user handle).
    package var identity: IdentityKey
    /// The user it belongs to.
    package var userID: UserID
    /// The credential public key, the COSE_Key bytes as the authenticator sent them.
    package var publicKey: [UInt8]
    /// The COSE algorithm of the key (-7 ES256, -8 EdDSA, -257 RS256).
    package var algorithm: Int
    /// The last signature counter seen.
    package var signCount: UInt32
    /// Whether the credential may be backed up (synced); fixed at registration.
    package var backupEligible: Bool
    /// Whether it was backed up at its last use.
    package var backedUp: Bool
    /// The authenticator's AAGUID (16 bytes; all zero when it does not say).
    package var aaguid: [UInt8]
    /// The transports the client reported (`internal`, `hybrid`, `usb`, …).
    package var transports: [String]
    /// The attestation statement format (`none`, `packed`, …) and whether it was verified.
    package var attestationFormat: String
    /// Whether the attestation statement was verified (`false` for `none` and for a format stored unverified).
    package var attestationVerified: Bool
    /// A name the user gave it (or the default, the date it was added).
    package var name: String
    /// When it was registered.
    package var createdAt: Date
    /// When it last signed in; `nil` before its first authentication.
    package var lastUsedAt: Date?

    package init(
        id: [UInt8], identity: IdentityKey, userID: UserID, publicKey: [UInt8], algorithm: Int, signCount: UInt32,
        backupEligible: Bool, backedUp: Bool, aaguid: [UInt8], transports: [String], attestationFormat: String,
        attestationVerified: Bool, name: String, createdAt: Date, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.identity = identity
        self.userID = userID
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.aaguid = aaguid
        self.transports = transports
        self.attestationFormat = attestationFormat
        self.attestationVerified = attestationVerified
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// The longest credential id accepted (WebAuthn Level 3 §7.1 step 22: at most 1,023 bytes).
    package static let maximumIDLength = 1023
    /// The longest name kept (characters).
    package static let maximumNameLength = 64
}

/// The passkeys of an account store (memory, SQLite, PostgreSQL), beside its users and identities: a passkey is
/// an identity `(provider, base64url(user handle))` with any number of credentials.
///
/// Each write is one transaction with the identity write it goes with, so a refused registration leaves no
/// user, identity or credential behind. Every method throws ``StoreError``; `backendFailure`, `busy` and
/// `corruptDatabase` can come from any of them.
package protocol PasskeyStore: Sendable {
    /// The credential with id `id`, of any provider and user, or `nil`.
    func passkey(_ id: [UInt8]) async throws(StoreError) -> PasskeyCredential?

    /// The user's credentials of every passkey provider, oldest first.
    func passkeys(of user: UserID) async throws(StoreError) -> [PasskeyCredential]

    /// Creates the user `id` with the passkey identity `credential.identity` and the credential, in one
    /// transaction (a sign-up with a passkey).
    ///
    /// - Throws: `duplicateUser`, `identityAlreadyLinked`, `duplicateCredential` when the credential id is
    ///   registered (to anyone), `invalidValue`. Nothing is stored when it throws.
    func createUser(_ id: UserID, profile: IdentityProfile, passkey credential: PasskeyCredential)
        async throws(StoreError) -> UserAccount

    /// Adds the credential to its user (`credential.userID`), linking the identity `credential.identity` to that
    /// user first when it is not yet, in one transaction.
    ///
    /// - Throws: `userNotFound`, `identityAlreadyLinked` when the identity belongs to another user,
    ///   `duplicateCredential`, `invalidValue`. Nothing is stored when it throws.
    func addPasskey(_ credential: PasskeyCredential, profile: IdentityProfile) async throws(StoreError)

    /// Records an authentication with the credential: its new signature counter, backup state and the time.
    ///
    /// - Throws: `credentialNotFound`.
    func recordPasskeyUse(_ id: [UInt8], signCount: UInt32, backedUp: Bool, at time: Date) async throws(StoreError)

    /// Renames one of `user`'s credentials.
    ///
    /// - Throws: `credentialNotFound` (also for another user's credential), `invalidValue`.
    func renamePasskey(_ id: [UInt8], of user: UserID, to name: String) async throws(StoreError)

    /// Deletes one of `user`'s credentials and returns it; the last credential of a provider takes its identity
    /// with it, and the identity's tokens (none are kept for passkeys).
    ///
    /// - Throws: `credentialNotFound` (also for another user's credential), `lastIdentity` when it is the user's
    ///   last way to sign in (delete the user instead). Nothing is removed when it throws.
    func deletePasskey(_ id: [UInt8], of user: UserID) async throws(StoreError) -> PasskeyCredential
}

extension ErrorCode where Domain == StoreError {
    /// A passkey credential with that id is already registered (to any user).
    package static var duplicateCredential: Self { Self(rawValue: "duplicate_credential") }
    /// No passkey credential with that id is stored (for that user).
    package static var credentialNotFound: Self { Self(rawValue: "credential_not_found") }
}

extension StoreValidation {
    /// Checks a credential before it is stored: id length, identity, name.
    package static func checkPasskey(_ credential: PasskeyCredential, operation: String) throws(StoreError) {
        guard !credential.id.isEmpty, credential.id.count <= PasskeyCredential.maximumIDLength else {
            throw StoreError(
                .invalidValue,
                "expected a credential id of 1 to \(PasskeyCredential.maximumIDLength) bytes, found "
                    + "\(credential.id.count)", operation: operation)
        }
        try checkIdentity(credential.identity, operation: operation)
        try checkPasskeyName(credential.name, operation: operation)
    }

    /// Checks a credential's name: 1 to 64 characters, no control characters.
    package static func checkPasskeyName(_ name: String, operation: String) throws(StoreError) {
        guard !name.isEmpty, name.count <= PasskeyCredential.maximumNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw StoreError(
                .invalidValue,
                "expected a passkey name of 1 to \(PasskeyCredential.maximumNameLength) characters without control "
                    + "characters, found one of \(name.count)", operation: operation)
        }
    }
}
