package import AuthFlowJSON

extension ErrorCode where Domain == ServerError {
    /// 404: no route of the server at this path (or a provider without native sign-in).
    package static let notFound = ServerError.Code(rawValue: "not_found")
    /// 500: the server could not seal what it had to (a provider logout state).
    package static let internalError = ServerError.Code(rawValue: "internal_error")
    /// 500: the server could not seal a native sign-in nonce.
    package static let serverError = ServerError.Code(rawValue: "server_error")
    /// 500: a provider plugin's event outcome named another provider's identity.
    package static let invalidEventOutcome = ServerError.Code(rawValue: "invalid_event_outcome")
    /// 500: `server.secret` is too short to key the flow cookie, so no sign-in can start.
    package static let flowCookieUnavailable = ServerError.Code(rawValue: "flow_cookie_unavailable")
}
