package import Foundation

extension InMemoryAccountStore: PasskeyStore {
    package func passkey(_ id: [UInt8]) -> PasskeyCredential? { state.passkeys[id] }

    package func passkeys(of user: UserID) -> [PasskeyCredential] {
        state.passkeys.values.filter { $0.userID == user }.sorted(by: Self.older)
    }

    package func createUser(_ id: UserID, profile: IdentityProfile, passkey credential: PasskeyCredential)
        throws(StoreError) -> UserAccount
    {
        let operation = "createUser(passkey:)"
        try StoreValidation.checkPasskey(credential, operation: operation)
        try checkNew(credential, operation: operation)
        guard credential.userID == id else {
            throw StoreError(
                .invalidValue, "expected the credential of the user created, found another user's",
                operation: operation)
        }
        let account = try insertUser(id, identity: credential.identity, profile: profile)
        state.passkeys[credential.id] = credential
        return account
    }

    package func addPasskey(_ credential: PasskeyCredential, profile: IdentityProfile) throws(StoreError) {
        let operation = "addPasskey"
        try StoreValidation.checkPasskey(credential, operation: operation)
        try checkNew(credential, operation: operation)
        _ = try insertIdentity(credential.identity, profile: profile, to: credential.userID)
        state.passkeys[credential.id] = credential
    }

    package func recordPasskeyUse(_ id: [UInt8], signCount: UInt32, backedUp: Bool, at time: Date)
        throws(StoreError)
    {
        guard var credential = state.passkeys[id] else { throw Self.credentialNotFound("recordPasskeyUse") }
        credential.signCount = signCount
        credential.backedUp = backedUp
        credential.lastUsedAt = time
        state.passkeys[id] = credential
    }

    package func renamePasskey(_ id: [UInt8], of user: UserID, to name: String) throws(StoreError) {
        let operation = "renamePasskey"
        try StoreValidation.checkPasskeyName(name, operation: operation)
        guard var credential = state.passkeys[id], credential.userID == user else {
            throw Self.credentialNotFound(operation)
        }
        credential.name = name
        state.passkeys[id] = credential
    }

    package func deletePasskey(_ id: [UInt8], of user: UserID) throws(StoreError) -> PasskeyCredential {
        let operation = "deletePasskey"
        guard let credential = state.passkeys[id], credential.userID == user,
            let account = Self.account(user, in: state)
        else { throw Self.credentialNotFound(operation) }
        let siblings = state.passkeys.values.filter { $0.identity == credential.identity && $0.id != id }
        if siblings.isEmpty {
            guard account.identities.count > 1 else {
                throw StoreError(
                    .lastIdentity, "expected the user to keep a way to sign in, found this passkey is the last",
                    operation: operation)
            }
            state.tokens[credential.identity] = nil
            state.identities[credential.identity] = nil
        }
        state.passkeys[id] = nil
        return credential
    }

    /// Refuses a credential id registered before, to anyone.
    private func checkNew(_ credential: PasskeyCredential, operation: String) throws(StoreError) {
        guard state.passkeys[credential.id] == nil else {
            throw StoreError(
                .duplicateCredential, "expected a credential id not registered before, found one that is",
                operation: operation)
        }
    }

    /// Oldest first, then by id.
    static func older(_ lhs: PasskeyCredential, _ rhs: PasskeyCredential) -> Bool {
        lhs.createdAt != rhs.createdAt ? lhs.createdAt < rhs.createdAt : lhs.id.lexicographicallyPrecedes(rhs.id)
    }

    static func credentialNotFound(_ operation: String) -> StoreError {
        StoreError(
            .credentialNotFound, "expected a stored passkey of this user, found none with that id", operation: operation
        )
    }
}
