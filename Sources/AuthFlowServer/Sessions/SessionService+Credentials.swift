import AuthFlow
import AuthFlowHTTP

extension SessionService {
    /// The session credential of `request`: its session cookie or its `Authorization: Bearer` token.
    ///
    /// - Throws: ``ServerError`` `ambiguous_credentials` (400) when it carries both, `duplicate_cookie` when it
    ///   carries the session cookie twice.
    func credential(_ request: HTTPServerRequest) throws(ServerError) -> SessionCredential? {
        let cookie = try cookieValue(request)
        let bearer = Self.bearerToken(request)
        switch (cookie, bearer) {
        case (let cookie?, nil): return .cookie(cookie)
        case (nil, let bearer?): return .bearer(bearer)
        case (nil, nil): return nil
        case (.some, .some):
            throw ServerError(
                .ambiguousCredentials,
                "expected one session credential, a session cookie or an Authorization bearer token, found both",
                status: 400)
        }
    }

    /// The session cookie's value when it looks like a session id.
    ///
    /// - Throws: ``ServerError`` `duplicate_cookie` (400) when the request carries the session cookie twice.
    func cookieValue(_ request: HTTPServerRequest) throws(ServerError) -> String? {
        guard let id = try Self.singleCookie(request, name: cookies.sessionCookieName), !id.isEmpty,
            id.utf8.count <= 128
        else { return nil }
        return id
    }

    /// The token of an `Authorization: Bearer TOKEN` header (scheme case-insensitive, RFC 6750); `nil` without
    /// one, for another scheme, or for a token that is empty or longer than 128 characters.
    static func bearerToken(_ request: HTTPServerRequest) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = String(parts[1]).trimmingCharacters()
        guard !token.isEmpty, token.utf8.count <= 128 else { return nil }
        return token
    }

    /// The one value of cookie `name` in `request`, or `nil` when it has none.
    ///
    /// Two values under one name mean a second cookie was set for another path or (sibling) domain, e.g.
    /// tossed in by a subdomain to slip its own sign-in or session into this browser. Which one the browser
    /// sent first says nothing about which is genuine, so the request is refused.
    ///
    /// - Throws: ``ServerError`` `duplicate_cookie` (400).
    static func singleCookie(_ request: HTTPServerRequest, name: String) throws(ServerError) -> String? {
        let values = request.cookieValues(name)
        guard values.count <= 1 else {
            throw ServerError(
                .duplicateCookie,
                "expected at most one cookie named \(name), found \(values.count) (clear this site's cookies)",
                status: 400)
        }
        return values.first
    }
}
