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

    /// The names of the fields every line has, in UTF-8 byte order: a line merges the details' names into them.
    static let fixedNames = [
        "actor", "client_address", "code", "event", "outcome", "provider", "request_id", "time", "user_id", "version",
    ]
    /// `"name":` of each of ``fixedNames``, as written.
    private static let fixedKeys = fixedNames.map { Array("\"\($0)\":".utf8) }

    /// The JSON line of this event at `time`, for the request `requestID` from `clientAddress`: the fixed
    /// fields always present (`null` when the event has none), then the event's details.
    package func line(time: Date, requestID: String?, clientAddress: String?) -> [UInt8] {
        var bytes: [UInt8] = []
        write(into: &bytes, time: time, requestID: requestID, clientAddress: clientAddress)
        return bytes
    }

    /// Appends ``line(time:requestID:clientAddress:)`` to `bytes`: one JSON object with its names in UTF-8 byte
    /// order (a detail named like a fixed field is left out, the fixed field wins), then a newline. Written
    /// straight into `bytes`, without building a dictionary of the members first.
    package func write(into bytes: inout [UInt8], time: Date, requestID: String?, clientAddress: String?) {
        var extra = details.isEmpty ? [] : JSONValue.sortedMembers(details)
        extra.removeAll { Self.fixedNames.contains($0.1) }
        var next = 0
        bytes.append(UInt8(ascii: "{"))
        for (index, name) in Self.fixedNames.enumerated() {
            while next < extra.count, JSONValue.precedes(extra[next].1, name) {
                Self.name(extra[next].1, first: next == 0 && index == 0, into: &bytes)
                extra[next].2.serialize(into: &bytes)
                next += 1
            }
            if next > 0 || index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: Self.fixedKeys[index])
            switch index {
            case 0: Self.optional(actor?.rawValue, into: &bytes)
            case 1: Self.optional(clientAddress, into: &bytes)
            case 2: Self.optional(code, into: &bytes)
            case 3: JSONValue.string(kind.rawValue).serialize(into: &bytes)
            case 4: JSONValue.string(outcome.rawValue).serialize(into: &bytes)
            case 5: Self.optional(provider, into: &bytes)
            case 6: Self.optional(requestID, into: &bytes)
            case 7: Self.writeTimestamp(time, into: &bytes)
            case 8: Self.optional(userID, into: &bytes)
            default: JSONValue.integer(Int64(AuditTrail.schemaVersion)).serialize(into: &bytes)
            }
        }
        for (_, name, value) in extra[next...] {
            Self.name(name, first: false, into: &bytes)
            value.serialize(into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        bytes.append(0x0A)
    }

    /// Writes `"name":`, after a comma unless it is the object's `first` member (the schema's names need no
    /// escaping).
    private static func name(_ name: String, first: Bool, into bytes: inout [UInt8]) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        JSONValue.string(name).serialize(into: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes `value` as a JSON string, or `null`.
    private static func optional(_ value: String?, into bytes: inout [UInt8]) {
        if let value {
            JSONValue.string(value).serialize(into: &bytes)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    /// RFC 3339 in UTC with milliseconds: `2026-12-07T01:30:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        var bytes: [UInt8] = []
        writeTimestamp(date, into: &bytes)
        return String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
    }

    /// Writes ``timestamp(_:)`` as a JSON string, computed from the date's seconds (the proleptic Gregorian
    /// calendar in UTC, milliseconds truncated, as Foundation's `ISO8601FormatStyle` gives them) without a
    /// calendar or a formatter; a date outside the years 1–9999 goes through that format style.
    static func writeTimestamp(_ date: Date, into bytes: inout [UInt8]) {
        let interval = date.timeIntervalSinceReferenceDate
        let whole = interval.rounded(.down)
        // 1 January 1 to 31 December 9999, in seconds from 2001.
        guard whole >= -63_113_904_000, whole < 252_423_993_600 else {
            JSONValue.string(date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
                .serialize(into: &bytes)
            return
        }
        var milliseconds = Int(((interval - whole) * 1000).rounded(.down))
        var seconds = Int(whole) + 978_307_200
        if milliseconds >= 1000 {
            milliseconds -= 1000
            seconds += 1
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let ofDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        bytes.append(UInt8(ascii: "\""))
        digits(year, 4, then: "-", into: &bytes)
        digits(month, 2, then: "-", into: &bytes)
        digits(day, 2, then: "T", into: &bytes)
        digits(ofDay / 3600, 2, then: ":", into: &bytes)
        digits(ofDay / 60 % 60, 2, then: ":", into: &bytes)
        digits(ofDay % 60, 2, then: ".", into: &bytes)
        digits(milliseconds, 3, then: "Z", into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes the `width` last decimal digits of `value` (not negative), zero-padded, then `separator`.
    private static func digits(_ value: Int, _ width: Int, then separator: Unicode.Scalar, into bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
            divisor /= 10
        }
        bytes.append(UInt8(ascii: separator))
    }

    /// The year, month and day of the Gregorian calendar `days` after 1970-01-01 (negative before), by counting
    /// 400-year eras of 146,097 days whose years start on 1 March, so that a leap day ends its year.
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468  // from 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
