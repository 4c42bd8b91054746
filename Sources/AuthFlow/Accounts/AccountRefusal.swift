package import AuthFlowJSON

/// Why account resolution refused a completed sign-in (``AccountDecision/refuse(_:)``): a stable code, a
/// message saying what was expected and what was found, and the HTTP status a server answers with.
package struct AccountRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code.
    package typealias Code = ErrorCode<AccountRefusal>

    /// The stable code.
    package let code: Code
    /// What was expected and what was found; never an email address or another bound value.
    package let message: String
    /// The HTTP status for the refusal (401 for `not_signed_in`, 403 otherwise).
    package let statusHint: Int
    /// The provider the refusal names, where the refusal is about its identity.
    package let provider: String?

    /// Creates a refusal.
    package init(_ code: Code, _ message: String, statusHint: Int, provider: String? = nil) {
        self.code = code
        self.message = message
        self.statusHint = statusHint
        self.provider = provider
    }

    /// `code: message`, safe to log.
    package var description: String { "\(code.rawValue): \(message)" }

    /// `account_exists` (403): the identity belongs to a user it may not be given to.
    package static func accountExists(provider: String?) -> AccountRefusal {
        AccountRefusal(
            .accountExists, "expected an identity without a user (or already this user's), found one that has a user",
            statusHint: 403, provider: provider)
    }

    /// `signup_disabled` (403): sign-up is off and the identity is new.
    package static let signupDisabled = AccountRefusal(
        .signupDisabled, "expected an identity that already has a user, found a new one (server.signup is false)",
        statusHint: 403)

    /// `identity_disabled` (403): the identity is disabled.
    package static let identityDisabled = AccountRefusal(
        .identityDisabled, "expected an identity that may sign in, found one that is disabled", statusHint: 403)

    /// `invalid_subject` (403): the subject `provider` vouched for is not one an identity may be keyed by;
    /// `found` says how (never the subject itself).
    package static func invalidSubject(provider: String?, found: String) -> AccountRefusal {
        AccountRefusal(
            .invalidSubject,
            "expected a provider subject of 1 to \(AccountRules.maximumSubjectBytes) bytes without control, line "
                + "separator or bidirectional control characters, found \(found)",
            statusHint: 403, provider: provider)
    }

    /// `not_signed_in` (401): a link completed without a signed-in user.
    package static func notSignedIn(provider: String?) -> AccountRefusal {
        AccountRefusal(
            .notSignedIn, "expected a signed-in session to link to, found none", statusHint: 401, provider: provider)
    }

    /// `link_not_authorised` (403): the session that a link would join was presented by a credential that
    /// cannot authorise a link (``LinkAuthority/ambientCookie``).
    package static func linkNotAuthorised(provider: String?) -> AccountRefusal {
        AccountRefusal(
            .linkNotAuthorised,
            "expected a link authorised by a bearer token, the sign-in's flow cookie or a same-origin request, "
                + "found a session cookie alone", statusHint: 403, provider: provider)
    }
}

extension ErrorCode where Domain == AccountRefusal {
    /// The identity already has a user (for `register`, or another user's for `link`).
    package static var accountExists: Self { Self(rawValue: "account_exists") }
    /// A new identity would need a new user and sign-up is off.
    package static var signupDisabled: Self { Self(rawValue: "signup_disabled") }
    /// The identity has been disabled and may not sign in.
    package static var identityDisabled: Self { Self(rawValue: "identity_disabled") }
    /// A `link` sign-in completed without a signed-in user to link to.
    package static var notSignedIn: Self { Self(rawValue: "not_signed_in") }
    /// A `link` whose signed-in user was established by a credential that cannot authorise it (a session
    /// cookie that nothing else shows to be the user's own request).
    package static var linkNotAuthorised: Self { Self(rawValue: "link_not_authorised") }
    /// The provider's subject cannot key an identity: empty, too long, or holding a control character.
    package static var invalidSubject: Self { Self(rawValue: "invalid_subject") }
}
