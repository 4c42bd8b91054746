import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension OIDCPlugin {
    /// The `events` member that marks a logout token (§2.4).
    package static let backchannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"
}

/// OpenID Connect Back-Channel Logout 1.0 (and Front-Channel Logout, `OIDCPlugin+FrontChannelLogout.swift`),
/// through the plugin events seam.
struct OIDCLogout: ProviderEventHandling {
    /// The issuer's metadata (the logout channels it advertises); `nil` before discovery.
    let metadata: OIDCProviderMetadata?

    /// `POST /auth/{name}/backchannel-logout` when the discovery document advertises
    /// `backchannel_logout_supported`, and `GET /auth/{name}/frontchannel-logout` when it advertises
    /// `frontchannel_logout_supported` (framable by the issuer only); none otherwise.
    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] {
        var endpoints: [ProviderEventEndpoint] = []
        if metadata?.backchannelLogoutSupported == true {
            endpoints.append(
                ProviderEventEndpoint(path: "backchannel-logout", method: "POST", maximumBodyBytes: 32 * 1024))
        }
        if metadata?.frontchannelLogoutSupported == true {
            var frontChannel = ProviderEventEndpoint(
                path: Self.frontchannelLogoutPath, method: "GET", maximumBodyBytes: 0, errorCode: "invalid_request")
            frontChannel.framableByIssuer = true
            endpoints.append(frontChannel)
        }
        return endpoints
    }

    /// Validates a logout token (§2.6) and ends the sessions it names.
    ///
    /// The form field `logout_token` is verified like an id_token through the provider's JWKS (the sign-in
    /// cache): the discovered algorithms, `iss` exact, `aud` one of the client ids, `iat` and `exp` with leeway;
    /// then `sub` and/or `sid`, an `events` object holding `http://schemas.openid.net/event/backchannel-logout`
    /// with an object value, **no `nonce`**, and a `jti` not seen before (a replay is refused). With `sid` the
    /// sessions that began with that provider session end (of that `sub` when given); with `sub` only, every
    /// session signed in with the identity. Answers 200, or 400 `{"error", "error_description"}`; both with
    /// `Cache-Control: no-store`.
    ///
    /// - Throws: `ProviderEventError` `invalid_request` (400).
    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext)
        async throws(ProviderEventError) -> ProviderEventOutcome
    {
        if request.endpoint.path == [Self.frontchannelLogoutPath] {
            return try frontChannelLogout(request.http, provider: context.provider)
        }
        guard let fields = request.formFields, let token = fields["logout_token"], !token.isEmpty else {
            throw Self.refusal("expected a form body with one logout_token, found none")
        }
        let provider = context.provider
        guard !provider.acceptedIssuers.isEmpty else {
            throw Self.refusal("expected a configured issuer for the provider, found none")
        }
        let claims: JWTClaims
        do throws(JOSEError) {
            claims = try await context.verify(token, with: provider.jwtVerifier(leeway: context.leeway))
        } catch {
            throw Self.refusal("the logout token failed verification: \(error.message)")
        }
        let subject = claims.subject.flatMap { $0.isEmpty || $0.utf8.count > 255 ? nil : $0 }
        let sid = claims.string("sid").flatMap { $0.isEmpty || $0.utf8.count > 255 ? nil : $0 }
        guard subject != nil || sid != nil else {
            throw Self.refusal("expected a 'sub' or 'sid' claim in the logout token, found neither")
        }
        guard claims["events"]?.objectValue?[OIDCPlugin.backchannelLogoutEvent]?.objectValue != nil else {
            throw Self.refusal("expected an 'events' object holding \(OIDCPlugin.backchannelLogoutEvent), found none")
        }
        guard claims["nonce"] == nil else {
            throw Self.refusal("expected no 'nonce' claim in a logout token, found one")
        }
        guard let jti = claims.string("jti"), !jti.isEmpty, jti.utf8.count <= 256 else {
            throw Self.refusal("expected a 'jti' claim, found none")
        }
        let action: ProviderEventAction
        if let sid {
            action = .endProviderSession(
                IdentityKey(provider: provider.name, subject: subject ?? ""), providerSessionID: sid)
        } else {
            action = .endSessions(IdentityKey(provider: provider.name, subject: subject ?? ""))
        }
        return ProviderEventOutcome(idempotencyKey: "logout:\(jti)", actions: [action], summary: "backchannel-logout") {
            disposition in
            guard disposition != .alreadyApplied else {
                return Self.refusal("expected a logout token not seen before, found a replayed jti").response
                    ?? .empty(status: 400)
            }
            var response = HTTPServerResponse.empty(status: 200)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }

    /// A refusal answered `400 {"error": "invalid_request", "error_description"}` (§2.8).
    static func refusal(_ description: String) -> ProviderEventError {
        ProviderEventError(
            code: "invalid_request", description, status: 400,
            response: .oauthError("invalid_request", description: description, status: 400))
    }
}
