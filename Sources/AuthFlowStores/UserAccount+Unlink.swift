extension UserAccount {
    /// The identities ``IdentityStore/unlinkProvider(_:from:)`` removes: every identity of `provider`, as long
    /// as one of another provider is left to sign in with.
    ///
    /// - Throws: ``StoreError`` `identityNotFound` when the user has no identity of `provider`, `lastIdentity`
    ///   when nothing would be left.
    package func identitiesToUnlink(_ provider: String, operation: String) throws(StoreError) -> [LinkedIdentity] {
        let removing = identities.filter { $0.provider == provider }
        guard !removing.isEmpty else {
            throw StoreError(
                .identityNotFound, "expected the user to have an identity of provider \(provider), found none",
                operation: operation)
        }
        guard removing.count < identities.count else {
            throw StoreError(
                .lastIdentity,
                "expected the user to keep at least one identity, found only identities of provider \(provider)",
                operation: operation)
        }
        return removing
    }
}
