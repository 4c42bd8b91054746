import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// One authentication at the OpenID issuer (the Google emulator, which tests use as a generic `type: oidc`
/// issuer): its `sid`, who authenticated when, how (`acr`), and the clients that signed in with it.
struct SandboxProviderSession: Sendable {
    let provider: SandboxProvider
    let sid: String
    let subject: String
    let authTime: Int64
    /// The `acr` reached, when the request asked for `acr_values`.
    let acr: String?
    /// Whether the request asked for `max_age` or `acr_values` (the id_token then carries `auth_time`).
    let stepUpAsked: Bool
    var clientIDs: [String]
}

extension SandboxState {
    /// The most sessions kept: the oldest are forgotten first.
    static let maximumProviderSessions = 1024

    /// Records the authentication behind a code of the OpenID issuer (nothing for other providers).
    mutating func recordProviderSession(
        _ request: AuthorizationRequest, identity: SandboxIdentity, authTime: Int64, sid: String
    ) {
        guard request.provider == .google else { return }
        let acr = request.acrValues.isEmpty ? nil : identity.pinnedACR ?? request.acrValues.first
        providerSessions.append(
            SandboxProviderSession(
                provider: request.provider, sid: sid, subject: identity.subject, authTime: authTime, acr: acr,
                stepUpAsked: request.maxAge != nil || !request.acrValues.isEmpty, clientIDs: [request.clientID]))
        if providerSessions.count > Self.maximumProviderSessions { providerSessions.removeFirst() }
    }

    /// The session an id_token for `clientID` and `subject` authenticated at `authTime` belongs to.
    func providerSession(provider: SandboxProvider, clientID: String, subject: String, authTime: Int64)
        -> SandboxProviderSession?
    {
        providerSessions.last {
            $0.provider == provider && $0.subject == subject && $0.authTime == authTime
                && $0.clientIDs.contains(clientID)
        }
    }
}

extension SandboxIdentityProvider {
    /// The `max_age` and `acr_values` of an authorization request (OpenID Connect Core §3.1.2.1) into
    /// `request`; a refusal for a `max_age` that is not a non-negative integer or more than 16 `acr_values`.
    static func readStepUp(_ parameters: Parameters, into request: inout AuthorizationRequest)
        -> AuthorizationRefusal?
    {
        if let text = parameters["max_age"] {
            guard let value = Int64(text), value >= 0, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return AuthorizationRefusal("invalid_request", "max_age must be a non-negative integer")
            }
            request.maxAge = value
        }
        if let text = parameters["acr_values"] {
            let values = text.split(separator: " ").map(String.init)
            guard !values.isEmpty, values.count <= 16 else {
                return AuthorizationRefusal("invalid_request", "acr_values must list 1 to 16 values")
            }
            request.acrValues = values
        }
        return nil
    }

    /// The session claims of an id_token: `sid` when the client registered a front-channel logout URI (the
    /// issuer requires the session there, Front-Channel Logout 1.0 §3), `auth_time` when the request asked for
    /// `max_age` or `acr_values`, `acr` when it asked for `acr_values`.
    func sessionClaims(provider: SandboxProvider, clientID: String, subject: String, authTime: Int64)
        -> [String: JSONValue]
    {
        state.withLock { state in
            guard
                let session = state.providerSession(
                    provider: provider, clientID: clientID, subject: subject, authTime: authTime)
            else { return [:] }
            var claims: [String: JSONValue] = [:]
            if state.frontChannelLogoutURIs["\(provider.rawValue)/\(clientID)"] != nil {
                claims["sid"] = .string(session.sid)
            }
            if session.stepUpAsked { claims["auth_time"] = .integer(session.authTime) }
            if let acr = session.acr { claims["acr"] = .string(acr) }
            return claims
        }
    }

    /// Registers the client's front-channel logout URI (`frontchannel_logout_uri`, with
    /// `frontchannel_logout_session_required`: the issuer sends `iss` and `sid`); its id_tokens then carry `sid`.
    package func registerFrontChannelLogout(_ uri: String, provider: SandboxProvider, clientID: String) {
        state.withLock { $0.frontChannelLogoutURIs["\(provider.rawValue)/\(clientID)"] = uri }
    }

    /// The OpenID issuer's end-session endpoint that renders the front-channel logout iframes.
    package func frontChannelEndSessionEndpoint(for provider: SandboxProvider) -> String {
        baseURL + provider.pathPrefix + "/logout"
    }

    /// `GET /google/logout?logout_hint=…` (OpenID Connect RP-Initiated Logout 1.0 `logout_hint`, read here as the
    /// subject): ends every session of that subject at the issuer and answers a page with one iframe per client
    /// with a registered front-channel logout URI, each `…?iss=…&sid=…` (Front-Channel Logout 1.0 §2). A
    /// missing hint is refused.
    func handleFrontChannelEndSession(_ request: HTTPServerRequest, provider: SandboxProvider) -> HTTPServerResponse {
        state.withLock { $0.count(provider, \.endSession) }
        let parameters = Parameters(request.query)
        if let problem = parameters.shapeProblem {
            return SandboxPages.error(provider: provider, refusal: AuthorizationRefusal("invalid_request", problem))
        }
        guard let subject = parameters["logout_hint"], !subject.isEmpty else {
            return SandboxPages.error(
                provider: provider, refusal: AuthorizationRefusal("invalid_request", "missing logout_hint"))
        }
        let issuer = issuer(for: provider) ?? ""
        let now = self.now
        let frames: [String] = state.withLock { state in
            let ended = state.providerSessions.filter { $0.provider == provider && $0.subject == subject }
            state.providerSessions.removeAll { $0.provider == provider && $0.subject == subject }
            state.logouts[provider, default: []].append(
                SandboxLogout(
                    clientID: nil, subject: subject, tenantID: nil, postLogoutRedirectURI: nil, state: nil,
                    viaPOST: false, loggedOutAt: now))
            return ended.flatMap { session in
                session.clientIDs.compactMap { clientID in
                    state.frontChannelLogoutURIs["\(provider.rawValue)/\(clientID)"].map { uri in
                        uri + (uri.contains("?") ? "&" : "?")
                            + FormURLEncoding.encode([("iss", issuer), ("sid", session.sid)])
                    }
                }
            }
        }
        let iframes = frames.map { "<iframe class=\"frontchannel\" src=\"\(HTML.escape($0))\"></iframe>" }
        var response = SandboxPages.page(
            SandboxPages.document(
                title: "Signed out (sandbox)",
                body: "<p class=\"banner\">Sandbox identity provider (\(HTML.escape(provider.displayName)))</p>"
                    + "<h1>You signed out</h1>" + iframes.joined()))
        response.headers["Content-Security-Policy"] =
            "default-src 'none'; style-src 'unsafe-inline'; frame-src http: https:; frame-ancestors 'none'"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cache-Control"] = "no-store"
        return response
    }
}
