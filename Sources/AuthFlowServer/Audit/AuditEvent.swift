package import AuthFlow
import AuthFlowJOSE
package import Foundation

/// One security event of the audit trail (docs/audit.md): what happened, to which user, through which provider,
/// with what outcome, and who caused it. Never a token, code, secret, session id or email: the fields are typed so
/// that none can be put in.
package struct AuditEvent: Sendable, Hashable {
    /// The event kinds, as the `event` field writes them; the schema (docs/audit.md) lists each.
    package enum Kind: String, Sendable, CaseIterable {
        /// A sign-in completed: a session was started (`session_kind` says cookie or bearer).
        case signInSucceeded = "sign_in.succeeded"
        /// A sign-in was refused, with the typed error `code`.
        case signInRefused = "sign_in.refused"
        /// A first sign-in created a user.
        case accountCreated = "account.created"
        /// An identity was linked to an existing user (`method`: `session` or `verified_email`).
        case identityLinked = "identity.linked"
        /// An identity was unlinked from its user.
        case identityUnlinked = "identity.unlinked"
        /// A user was deleted with its identities, tokens and sessions.
        case accountDeleted = "account.deleted"
        /// One session, or every session of a user (`scope`), ended at someone's request (`actor`).
        case sessionRevoked = "session.revoked"
        /// A provider's event (a notification, a back-channel logout) was verified and applied.
        case providerEventApplied = "provider_event.applied"
        /// An administrator's command (`action`) changed accounts, sessions or passkeys.
        case adminAction = "admin.action"
        /// The server opened a value sealed under a previous secret (`server.previous_secrets`): a rotation is in
        /// progress. Written once per `purpose` (the value's kind) per process.
        case previousSecretUsed = "secret.previous_used"
    }

    /// Who caused the event.
    package enum Actor: String, Sendable {
        /// The signed-in user (sign-out, their own session list, account deletion).
        case user
        /// An administrator (`authflow users …`, `authflow sessions …`, `authflow passkeys …`).
        case admin
        /// The identity provider (a back-channel logout, a notification).
        case provider
        /// The server itself (a refresh token reused: the chain is ended).
        case server
    }

    /// The outcome written in `outcome`.
    package enum Outcome: String, Sendable {
        case success
        case failure
    }

    package var kind: Kind
    package var outcome: Outcome
    /// The typed error code of a failure (`state_mismatch`, `signup_disabled`, …).
    package var code: String?
    package var userID: String?
    package var provider: String?
    package var actor: Actor?
    /// Event-specific fields of the schema (`session_kind`, `scope`, `sessions`, `action`, `method`, `intent`,
    /// `event_type`, `purpose`); only values the schema names, never personal data or credentials.
    package var details: [String: JSONValue]

    package init(
        _ kind: Kind, outcome: Outcome = .success, code: String? = nil, userID: UserID? = nil, provider: String? = nil,
        actor: Actor? = nil, details: [String: JSONValue] = [:]
    ) {
        self.kind = kind
        self.outcome = outcome
        self.code = code
        self.userID = userID?.rawValue
        self.provider = provider
        self.actor = actor
        self.details = details
    }

    /// `sign_in.succeeded` of `user` through `provider`, with the sign-in's intent and the kind of session started.
    package static func signedIn(_ user: UserID, provider: String, intent: String, session: String) -> AuditEvent {
        AuditEvent(
            .signInSucceeded, userID: user, provider: provider, actor: .user,
            details: ["intent": .string(intent), "session_kind": .string(session)])
    }

    /// `session.revoked` by `actor`: one session (`scope: session`) or every session of the user (`scope: user`),
    /// `count` of them.
    package static func sessionsRevoked(
        _ user: UserID?, actor: Actor, scope: String, count: Int, provider: String? = nil, kind: String? = nil
    ) -> AuditEvent {
        var details: [String: JSONValue] = ["scope": .string(scope), "sessions": .integer(Int64(count))]
        if let kind { details["session_kind"] = .string(kind) }
        return AuditEvent(.sessionRevoked, userID: user, provider: provider, actor: actor, details: details)
    }

    /// The JSON line of this event at `time`, for the request `requestID` from `clientAddress`: the fixed
    /// fields always present (`null` when the event has none), then the event's details.
    package func line(time: Date, requestID: String?, clientAddress: String?) -> [UInt8] {
        var object = details
        object["version"] = .integer(Int64(AuditTrail.schemaVersion))
        object["time"] = .string(Self.timestamp(time))
        object["event"] = .string(kind.rawValue)
        object["outcome"] = .string(outcome.rawValue)
        object["code"] = code.map { .string($0) } ?? .null
        object["request_id"] = requestID.map { .string($0) } ?? .null
        object["client_address"] = clientAddress.map { .string($0) } ?? .null
        object["user_id"] = userID.map { .string($0) } ?? .null
        object["provider"] = provider.map { .string($0) } ?? .null
        object["actor"] = actor.map { .string($0.rawValue) } ?? .null
        var bytes: [UInt8] = []
        JSONValue.object(object).serialize(into: &bytes)
        bytes.append(0x0A)
        return bytes
    }

    /// RFC 3339 in UTC with milliseconds: `2026-12-07T01:30:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
