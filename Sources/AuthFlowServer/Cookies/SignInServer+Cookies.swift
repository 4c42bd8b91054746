import AuthFlow
import AuthFlowHTTP

extension SignInServer {
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
