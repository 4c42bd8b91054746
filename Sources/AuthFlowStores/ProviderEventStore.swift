/// What providers send outside a sign-in: Apple's first-login names parked until the sign-in completes, and
/// the log of applied provider notifications (each applied once); with the check that the store answers. One
/// of the three concerns of an account store (``AccountStore``).
///
/// Every method throws ``StoreError``; `backendFailure`, `busy` and `corruptDatabase` can come from any of
/// them, the other codes are listed per method.
public protocol ProviderEventStore: Sendable {
    /// Parks Apple's first-login name under `profile.key` (the flow's state) until ``takePendingProfile(key:)``.
    /// Called before the token exchange, so the name survives a later failure. Expired records are purged.
    ///
    /// - Throws: `duplicateKey` when a live record has that key, `invalidValue` (an expiry not in the future),
    ///   `capacityExceeded` when a bounded store is full.
    func putPendingProfile(_ profile: PendingProfile) async throws(StoreError)

    /// Removes and returns the live pending profile stored under `key`; `nil` when unknown, already taken or
    /// expired. Atomic: of concurrent takes, one gets the record.
    func takePendingProfile(key: String) async throws(StoreError) -> PendingProfile?

    /// Applies the changes of a provider notification exactly once: records `id` and applies every change in
    /// one transaction.
    ///
    /// - Returns: `true` when applied, `false` (and nothing changed) when `id` was applied before.
    /// - Throws: `identityNotFound` when a change names an unknown identity, `invalidValue` for an empty id;
    ///   when it throws nothing is applied and `id` is not recorded.
    func applyNotification(id: String, changes: [AccountChange]) async throws(StoreError) -> Bool

    /// Whether a provider notification `id` was applied (recorded by ``applyNotification(id:changes:)``); a
    /// status page such as Facebook's data deletion status reads it.
    ///
    /// - Throws: `invalidValue` for an empty id.
    func isNotificationApplied(id: String) async throws(StoreError) -> Bool

    /// Checks that the store answers (for `GET /healthz`).
    func checkHealth() async throws(StoreError)
}
