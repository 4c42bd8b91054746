/// An account store that can end a browser's previous session inside the transaction of a sign-in's account
/// write, so that the sign-in costs one durable commit rather than two (the SQL stores, where the sessions live in
/// the same database as the accounts).
///
/// The server asks for this view when the signing-in browser still holds a session; where a store cannot give
/// one (the in-memory stores, sessions in Redis), it ends the old session with its own operation as before.
package protocol SessionEndingAccountStore: AccountStore {
    /// This store, also deleting the session stored under `digest` in the transaction of each account write it
    /// makes (`createUser`, `linkIdentity`, `updateIdentityProfile`); a write that fails rolls the deletion back
    /// with it. `nil` when `sessions` does not keep its sessions in this store's database.
    func endingSession(digest: [UInt8], keptIn sessions: any SessionStore) -> (any AccountStore)?
}
