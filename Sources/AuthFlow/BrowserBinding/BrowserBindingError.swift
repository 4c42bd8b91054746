public import AuthFlowJSON

/// Why the browser-binding kit (``FlowCookies``, ``FormPostBounce``) refused a request or could not answer.
public struct BrowserBindingError: CodedError, Sendable, Equatable {
    /// A stable error code.
    public typealias Code = ErrorCode<BrowserBindingError>

    /// The stable code.
    public let code: Code
    /// What was expected and what was found; never a cookie value or a state.
    public let message: String
    /// The HTTP status to answer with.
    public let statusHint: Int

    /// Creates an error.
    package init(_ code: Code, _ message: String, statusHint: Int) {
        self.code = code
        self.message = message
        self.statusHint = statusHint
    }
}

extension ErrorCode where Domain == BrowserBindingError {
    /// The request carries two flow cookies for one sign-in.
    package static var duplicateCookie: Self { Self(rawValue: "duplicate_cookie") }
    /// The flow record could not be sealed into its cookie.
    package static var flowCookieUnavailable: Self { Self(rawValue: "flow_cookie_unavailable") }
    /// A callback is larger than the bounce page re-POSTs, or its body is not a form.
    package static var invalidRequest: Self { Self(rawValue: "invalid_request") }
}
