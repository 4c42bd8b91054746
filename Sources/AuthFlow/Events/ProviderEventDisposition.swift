/// What became of a verified provider event, given to the outcome's `respond` closure to choose the answer.
public enum ProviderEventDisposition: String, Sendable, Hashable, CaseIterable {
    /// The actions were applied now.
    case applied
    /// The idempotency key was applied before: nothing changed.
    case alreadyApplied = "already_applied"
    /// An account change named an identity this site does not know: nothing changed, the key is not recorded.
    case unknownIdentity = "unknown_identity"
    /// The outcome had no idempotency key and no actions (a status page, an event that is only logged).
    case nothingToApply = "nothing_to_apply"
}
