package import AuthFlow

/// Why the sign-in server refused a request. Its ``code`` is stable and becomes the body
/// `{"error": CODE, "message": TEXT}`; ``status`` is the HTTP status.
///
/// Sign-in failures keep the `SignInError` code (`invalid_state`, `browser_binding_mismatch`, …); the
/// server adds its own codes for what happens around the flow. Messages say what was expected and what was
/// found and never contain a token, code, state, cookie value, secret or email address.
public struct ServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable snake_case error code.
    public typealias Code = ErrorCode<ServerError>

    /// The stable code.
    public let code: Code
    /// What was expected and what was found; safe to show and log.
    public let message: String
    /// The HTTP status to answer with.
    public let status: Int
    /// The provider concerned, when known.
    package var provider: String?
    /// The store that failed (`accounts`, `sessions`, `flows`), for `store_unavailable`.
    package var store: String?
    /// Seconds the client should wait before retrying (`Retry-After`), for `rate_limited`.
    package var retryAfter: Int?
    /// The sign-in trace up to the failure, when the error came from a sign-in.
    package var trace: [TraceEvent] = []

    /// Creates an error.
    public init(_ code: Code, _ message: String, status: Int, provider: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.provider = provider
    }

    /// Wraps a sign-in failure: its code, message and `SignInError.statusHint`.
    package init(_ error: SignInError) {
        self.init(
            Code(rawValue: error.code.rawValue), error.message, status: error.statusHint, provider: error.provider)
        self.trace = error.trace
    }

    /// Wraps a store failure as `store_unavailable` (503); `store` names the store that failed.
    package init(_ error: StoreError, while doing: String, store: String? = nil) {
        self.init(
            .storeUnavailable, "expected the store to \(doing), found \(error.code.rawValue)", status: 503)
        self.store = store
    }

    /// Equal when code, message, status and provider are equal.
    public static func == (lhs: ServerError, rhs: ServerError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.status == rhs.status && lhs.provider == rhs.provider
    }

    /// `code: message`, safe to log.
    public var description: String { "\(code.rawValue): \(message)" }
}

extension ErrorCode where Domain == ServerError {
    /// `return_to` is not a path under `server.allowed_return_to` or an allowed origin.
    package static var invalidReturnTo: Self { Self(rawValue: "invalid_return_to") }
    /// `register` for an identity that already has a user, or `link` of an identity another user has.
    package static var accountExists: Self { Self(rawValue: "account_exists") }
    /// A first sign-in would create a user but `server.signup` is `false`.
    package static var signupDisabled: Self { Self(rawValue: "signup_disabled") }
    /// The request needs a session and has none (or its session ended).
    package static var notSignedIn: Self { Self(rawValue: "not_signed_in") }
    /// 403: signed in, but `server.access` or the `/auth/check` query refuses the user.
    package static var forbidden: Self { Self(rawValue: "forbidden") }
    /// A state-changing POST came from another origin.
    package static var crossOriginRequest: Self { Self(rawValue: "cross_origin_request") }
    /// No provider with that name is configured.
    package static var unknownProvider: Self { Self(rawValue: "unknown_provider") }
    /// An Apple server-to-server notification failed verification or is malformed.
    package static var invalidNotification: Self { Self(rawValue: "invalid_notification") }
    /// Sign-in with this identity was disabled (e.g. Apple reported the account deleted).
    package static var identityDisabled: Self { Self(rawValue: "identity_disabled") }
    /// Disconnecting would leave the user without any identity to sign in with.
    package static var lastIdentity: Self { Self(rawValue: "last_identity") }
    /// The signed-in user has no identity of that provider to disconnect.
    package static var notLinked: Self { Self(rawValue: "not_linked") }
    /// The request is malformed (wrong content type, missing field).
    package static var invalidRequest: Self { Self(rawValue: "invalid_request") }
    /// The request carries one cookie name (the session or a flow cookie) twice: refused, since either
    /// could have been tossed in by another site.
    package static var duplicateCookie: Self { Self(rawValue: "duplicate_cookie") }
    /// Too many sign-in starts or callbacks from one client address; retry after `Retry-After` seconds.
    package static var rateLimited: Self { Self(rawValue: "rate_limited") }
    /// The request carries both a session cookie and an `Authorization: Bearer` token.
    package static var ambiguousCredentials: Self { Self(rawValue: "ambiguous_credentials") }
    /// The route needs a bearer session (`POST /auth/session/refresh`) and the request has none.
    package static var notBearerSession: Self { Self(rawValue: "not_bearer_session") }
    /// `POST /auth/session/refresh` with a bearer session whose refresh chain reached
    /// `server.native_session_max_age`: the app signs in again.
    package static var sessionExpired: Self { Self(rawValue: "session_expired") }
    /// `POST /auth/sessions/revoke` names no live session of the signed-in user.
    package static var sessionNotFound: Self { Self(rawValue: "session_not_found") }
    /// A store did not answer; the request changed nothing it could not finish.
    package static var storeUnavailable: Self { Self(rawValue: "store_unavailable") }
    /// 405: the path exists, but not for this method.
    package static var methodNotAllowed: Self { Self(rawValue: "method_not_allowed") }
    /// 415: the route reads another body type (JSON routes take `application/json` only; form routes a form
    /// or no body).
    package static var unsupportedMediaType: Self { Self(rawValue: "unsupported_media_type") }
}
