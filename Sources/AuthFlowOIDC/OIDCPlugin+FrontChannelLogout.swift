import AuthFlow
import AuthFlowHTTP

/// OpenID Connect Front-Channel Logout 1.0 (https://openid.net/specs/openid-connect-frontchannel-1_0.html),
/// through the plugin events seam: the issuer's logout page renders `GET /auth/{name}/frontchannel-logout?iss=…&sid=…`
/// in an iframe, and the sessions that began with that provider session end.
extension OIDCLogout {
    /// The endpoint's path under `/auth/{name}/`.
    static let frontchannelLogoutPath = "frontchannel-logout"

    /// The longest `iss` or `sid` read, in UTF-8 bytes.
    static let maximumFrontChannelParameterBytes = 255

    /// Checks a front-channel logout request (§2, §3) and names the sessions it ends.
    ///
    /// `iss`, when present (required with `frontchannel_logout_session_required`), must equal the issuer exactly;
    /// `sid` (required likewise) names the provider session whose sessions end, of any subject of this provider.
    /// Each parameter at most once. Without `sid` (allowed only when the issuer does not require the session) no
    /// session can be named: AuthFlow's session cookie is not sent in a cross-site iframe, so nothing ends and the
    /// page is still answered. The page is the server's (``frontChannelPage``), framable by the issuer only.
    ///
    /// - Throws: `ProviderEventError` `invalid_request` (400) naming what was expected and what was found.
    func frontChannelLogout(_ http: HTTPServerRequest, provider: ResolvedProvider) throws(ProviderEventError)
        -> ProviderEventOutcome
    {
        let required = metadata?.frontchannelLogoutSessionRequired == true
        let iss = try Self.frontChannelParameter("iss", of: http)
        let sid = try Self.frontChannelParameter("sid", of: http)
        if required {
            guard iss != nil, sid != nil else {
                throw Self.frontChannelRefusal(
                    "expected 'iss' and 'sid' query parameters (the issuer requires the session), found "
                        + (iss == nil && sid == nil ? "neither" : iss == nil ? "no 'iss'" : "no 'sid'"))
            }
        }
        if let iss {
            guard let issuer = provider.issuer, iss == issuer else {
                throw Self.frontChannelRefusal(
                    "expected 'iss' to be the provider's issuer \(provider.issuer ?? "(none)"), found another")
            }
        } else if sid != nil {
            throw Self.frontChannelRefusal("expected 'iss' with 'sid', found 'sid' alone")
        }
        let page = Self.frontChannelPage
        guard let sid else { return .respond(page, summary: "frontchannel-logout") }
        let action = ProviderEventAction.endProviderSession(
            IdentityKey(provider: provider.name, subject: ""), providerSessionID: sid)
        return ProviderEventOutcome(idempotencyKey: nil, actions: [action], summary: "frontchannel-logout") { _ in page
        }
    }

    /// The one value of query parameter `name`, `nil` when absent.
    ///
    /// - Throws: `invalid_request` for a repeated, empty or overlong value.
    static func frontChannelParameter(_ name: String, of http: HTTPServerRequest) throws(ProviderEventError)
        -> String?
    {
        let values = http.query.filter { $0.0 == name }.map(\.1)
        guard values.count <= 1 else {
            throw frontChannelRefusal("expected at most one '\(name)' query parameter, found \(values.count)")
        }
        guard let value = values.first else { return nil }
        guard !value.isEmpty, value.utf8.count <= maximumFrontChannelParameterBytes else {
            throw frontChannelRefusal(
                "expected '\(name)' of 1 to \(maximumFrontChannelParameterBytes) bytes, found \(value.utf8.count)")
        }
        return value
    }

    /// A refusal answered as the server's error (`400 {"error": "invalid_request", "message"}`), never framable.
    static func frontChannelRefusal(_ description: String) -> ProviderEventError {
        ProviderEventError(code: "invalid_request", description, status: 400)
    }

    /// The small page the iframe shows (nothing the user sees matters: the issuer's page hides it). The server
    /// adds the framing policy and `Cache-Control: no-store`.
    static var frontChannelPage: HTTPServerResponse {
        var response = HTTPServerResponse.html(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>Signed out</title></head>"
                + "<body><p id=\"frontchannel-logout\">Signed out.</p></body></html>", status: 200)
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
