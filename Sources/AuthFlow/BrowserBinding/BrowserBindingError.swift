/// Why the browser-binding kit (``FlowCookies``, ``FormPostBounce``) refused a request or could not answer.
public struct BrowserBindingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The snake_case code.
        public let rawValue: String
        /// Wraps a code string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code string.
        public var description: String { rawValue }

        /// The request carries two flow cookies for one sign-in.
        public static let duplicateCookie = Code(rawValue: "duplicate_cookie")
        /// The flow record could not be sealed into its cookie.
        public static let flowCookieUnavailable = Code(rawValue: "flow_cookie_unavailable")
        /// A callback is larger than the bounce page re-POSTs, or its body is not a form.
        public static let invalidRequest = Code(rawValue: "invalid_request")
    }

    /// The stable code.
    public let code: Code
    /// What was expected and what was found; never a cookie value or a state.
    public let message: String
    /// The HTTP status to answer with.
    public let statusHint: Int

    /// Creates an error.
    public init(_ code: Code, _ message: String, statusHint: Int) {
        self.code = code
        self.message = message
        self.statusHint = statusHint
    }

    /// `code: message`, safe to log.
    public var description: String { "\(code.rawValue): \(message)" }
}
