public import AuthFlowJSON

/// Why an ``AccountStore`` or ``SessionStore`` operation failed.
///
/// Messages say what was expected and what was found. They never contain a token, a session id, an
/// email address or any other bound value; `operation` names the store operation that failed.
public struct StoreError: CodedError, Sendable, Equatable {
    /// A stable error code.
    public typealias Code = ErrorCode<StoreError>

    /// The stable code.
    public let code: Code
    /// What was expected and what was found; never a secret, token, session id or email address.
    public let message: String
    /// The store operation that failed, e.g. `"linkIdentity"`.
    public var operation: String?

    /// Creates an error; keep `message` free of secrets and bound values.
    public init(_ code: Code, _ message: String, operation: String? = nil) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    /// `code: message (operation: …)`.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let operation { text += " (operation: \(operation))" }
        return text
    }

    /// `leaseLost` for `operation`.
    package static func leaseLost(_ operation: String) -> StoreError {
        StoreError(
            .leaseLost, "expected to hold the identity's refresh lease, found another holder or none",
            operation: operation)
    }
}

extension ErrorCode where Domain == StoreError {
    /// The identity `(provider, subject)` already belongs to a user (another one, for `linkIdentity`).
    package static var identityAlreadyLinked: Self { Self(rawValue: "identity_already_linked") }
    /// No identity `(provider, subject)` is stored (or none of that provider for the user).
    package static var identityNotFound: Self { Self(rawValue: "identity_not_found") }
    /// No user with that id is stored.
    package static var userNotFound: Self { Self(rawValue: "user_not_found") }
    /// A user with that id already exists.
    package static var duplicateUser: Self { Self(rawValue: "duplicate_user") }
    /// The operation would leave the user without any identity to sign in with.
    package static var lastIdentity: Self { Self(rawValue: "last_identity") }
    /// A session with that id already exists.
    package static var duplicateSession: Self { Self(rawValue: "duplicate_session") }
    /// A pending profile with that key already exists.
    package static var duplicateKey: Self { Self(rawValue: "duplicate_key") }
    /// The store holds as many live records of a kind as it may; new ones are refused until some expire.
    package static var capacityExceeded: Self { Self(rawValue: "capacity_exceeded") }
    /// An argument is out of range (empty provider or subject, a non-finite date, ...).
    package static var invalidValue: Self { Self(rawValue: "invalid_value") }
    /// Stored data cannot be read back (undecryptable tokens, a malformed row).
    package static var corruptData: Self { Self(rawValue: "corrupt_data") }
    /// The database file is damaged or is not a database.
    package static var corruptDatabase: Self { Self(rawValue: "corrupt_database") }
    /// The database was written by a newer AuthFlow whose schema this version does not know.
    package static var unsupportedSchema: Self { Self(rawValue: "unsupported_schema") }
    /// The database stayed locked by another connection longer than the busy timeout.
    package static var busy: Self { Self(rawValue: "busy") }
    /// The backend failed (I/O, permissions, connection).
    package static var backendFailure: Self { Self(rawValue: "backend_failure") }
    /// The caller no longer holds the identity's refresh lease (it expired and another holder took it, or
    /// new tokens were saved meanwhile): its refreshed tokens were not written.
    package static var leaseLost: Self { Self(rawValue: "lease_lost") }
}
