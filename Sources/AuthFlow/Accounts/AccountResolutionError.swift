/// Why ``AccountResolver/resolve(_:signedInUser:linkAuthority:name:tokens:)`` did not resolve an account.
package enum AccountResolutionError: Error, Sendable, Equatable {
    /// The rules refused the sign-in.
    case refused(AccountRefusal)
    /// The account store failed while doing what `while` says (e.g. "link the identity").
    case storeFailed(StoreError, while: String)
    /// The store answered something inconsistent (a new user without its identity); the message says what.
    case inconsistentStore(String)
}
