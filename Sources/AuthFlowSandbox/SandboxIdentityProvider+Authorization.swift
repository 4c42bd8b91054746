import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The browser-facing half shared by the four emulators: authorization endpoint → consent page →
/// consent decision → code delivered to the redirect URI (query, fragment or Apple's form_post).
extension SandboxIdentityProvider {
    /// `GET <authorization endpoint>`: validates the request as the provider would, then shows the
    /// consent page (or approves at once when auto-consent is set). A request that cannot be trusted is
    /// answered with an error page, never with a redirect.
    func handleAuthorize(
        _ request: HTTPServerRequest, provider: SandboxProvider,
        validate: (Parameters) -> Result<AuthorizationRequest, AuthorizationRefusal>
    ) -> HTTPServerResponse {
        state.withLock { $0.count(provider, \.authorization) }
        let parameters = Parameters(request.query)
        if let problem = parameters.shapeProblem {
            return SandboxPages.error(provider: provider, refusal: AuthorizationRefusal("invalid_request", problem))
        }
        let authorization: AuthorizationRequest
        switch validate(parameters) {
        case .failure(let refusal): return SandboxPages.error(provider: provider, refusal: refusal)
        case .success(let value): authorization = value
        }
        if provider == .google, parameters["prompt"] == "none" {
            // No browser session exists at the sandbox, so a silent sign-in can never succeed.
            return deliver(authorization, fields: [("error", "interaction_required")] + stateField(authorization))
        }
        if let identity = state.withLock({ $0.autoConsent[provider] }) {
            return approve(authorization, as: identity)
        }
        let ticket = randomToken()
        let now = self.now
        let stored = state.withLock {
            $0.addPendingConsent(
                ticket,
                PendingConsent(
                    request: authorization, expiresAt: now.addingTimeInterval(SandboxState.consentTicketLifetime)),
                now: now)
        }
        guard stored else { return busy(provider) }
        return SandboxPages.consent(
            request: authorization, ticket: ticket, action: baseURL + provider.pathPrefix + "/consent",
            presets: provider.emulator.presets, extraFields: provider.emulator.consentFieldsHTML)
    }

    /// `POST <prefix>/consent`: the user's decision. The single-use ticket is the only link to the validated
    /// request, so nothing the browser sends can change the client, redirect URI, scopes or PKCE binding.
    func handleConsent(_ request: HTTPServerRequest, provider: SandboxProvider) -> HTTPServerResponse {
        state.withLock { $0.count(provider, \.consent) }
        func refuse(_ description: String) -> HTTPServerResponse {
            SandboxPages.error(provider: provider, refusal: AuthorizationRefusal("invalid_request", description))
        }
        guard let form = Parameters.form(of: request) else {
            return refuse("expected an application/x-www-form-urlencoded consent form")
        }
        if let problem = form.shapeProblem { return refuse(problem) }
        guard let ticket = form["ticket"] else { return refuse("the consent form has no ticket") }
        let now = self.now
        guard let authorization = state.withLock({ $0.takePendingConsent(ticket, provider: provider, now: now) })
        else {
            return refuse("the consent ticket is unknown, already used or expired; start the sign-in again")
        }
        let stillRegistered = state.withLock { state in
            state.client(provider, authorization.clientID)?.redirectURIs.contains(authorization.redirectURI) == true
        }
        guard stillRegistered else {
            return refuse("the client or its redirect URI is no longer registered")
        }
        switch form["decision"] {
        case "cancel"?:
            return deliver(authorization, fields: cancellationFields(authorization))
        case "allow"?:
            switch identity(from: form, provider: provider) {
            case .success(let identity): return approve(authorization, as: identity)
            case .failure(let refusal): return SandboxPages.error(provider: provider, refusal: refusal)
            }
        default:
            return refuse("decision must be allow or cancel")
        }
    }

    /// Issues a code for the approved request and sends it to the redirect URI.
    func approve(_ authorization: AuthorizationRequest, as chosen: SandboxIdentity) -> HTTPServerResponse {
        let provider = authorization.provider
        let identity: SandboxIdentity
        switch provider.emulator.approvedIdentity(chosen, for: authorization, sandbox: self) {
        case .success(let value): identity = value
        case .failure(let refusal):
            let issuer = provider.emulator.authorizationResponseIssuer(sandbox: self).map { [("iss", $0)] } ?? []
            return deliver(
                authorization,
                fields: [("error", refusal.error), ("error_description", refusal.description)]
                    + stateField(authorization) + issuer)
        }
        let now = self.now
        let code = randomToken(prefix: provider.emulator.codePrefix)
        let consentKey = ConsentKey(provider: provider, clientID: authorization.clientID, subject: identity.subject)
        let sid = randomToken()
        let outcome = state.withLock { state -> (stored: Bool, firstConsent: Bool) in
            let first = !state.consents.contains(consentKey)
            let authTime = Int64(now.timeIntervalSince1970) - (identity.staleAuthenticationSeconds ?? 0)
            state.recordProviderSession(authorization, identity: identity, authTime: authTime, sid: sid)
            let record = CodeRecord(
                request: authorization, identity: identity, authTime: authTime,
                expiresAt: now.addingTimeInterval(provider.authorizationCodeLifetime),
                issuesRefreshToken: provider == .google
                    ? authorization.offlineAccess && (first || authorization.forceConsent) : true)
            guard state.addCode(code, record, now: now) else { return (false, first) }
            state.consents.insert(consentKey)
            return (true, first)
        }
        guard outcome.stored else { return busy(provider) }
        var fields: [(String, String)] = [("code", code)]
        if provider == .apple, authorization.responseTypes.contains("id_token") {
            do {
                let idToken = try signIDToken(
                    provider: provider, clientID: authorization.clientID, identity: identity,
                    scopes: authorization.scopes, nonce: authorization.nonce,
                    authTime: Int64(now.timeIntervalSince1970), accessToken: nil)
                fields.append(("id_token", idToken))
            } catch {
                return SandboxPages.error(
                    provider: provider, refusal: AuthorizationRefusal("server_error", error.message, status: 500))
            }
        }
        fields += stateField(authorization)
        if provider == .google { fields.append(("scope", authorization.scopes.joined(separator: " "))) }
        if provider == .apple, outcome.firstConsent, let user = Self.appleUserField(authorization, identity) {
            fields.append(("user", user))
        }
        if let issuer = provider.emulator.authorizationResponseIssuer(sandbox: self) { fields.append(("iss", issuer)) }
        return deliver(authorization, fields: fields)
    }

    /// Sends the authorization response the way the request asked for: a 302 with the fields in the query or
    /// fragment, or Apple's auto-submitting form_post page.
    func deliver(_ authorization: AuthorizationRequest, fields: [(String, String)]) -> HTTPServerResponse {
        let encoded = FormURLEncoding.encode(fields)
        let location: String
        switch authorization.responseMode {
        case .formPost:
            return SandboxPages.formPost(action: authorization.redirectURI, fields: fields)
        case .query:
            let separator = authorization.redirectURI.contains("?") ? "&" : "?"
            // Facebook famously appends an empty fragment to its redirects.
            location =
                authorization.redirectURI + separator + encoded + (authorization.provider == .facebook ? "#_=_" : "")
        case .fragment:
            location = authorization.redirectURI + "#" + encoded
        }
        var response = HTTPServerResponse.redirect(to: location, status: 302)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
    }

    func stateField(_ authorization: AuthorizationRequest) -> [(String, String)] {
        authorization.state.map { [("state", $0)] } ?? []
    }

    /// `error=access_denied` and the state (Facebook adds its `error_reason` and friends).
    func cancellationFields(_ authorization: AuthorizationRequest) -> [(String, String)] {
        let issuer = authorization.provider.emulator.authorizationResponseIssuer(sandbox: self).map { [("iss", $0)] }
        return authorization.provider.emulator.cancellationFields(authorization) + stateField(authorization)
            + (issuer ?? [])
    }

    /// The identity chosen on the consent page: a preset (`identity=preset-N`) or a typed one (`identity=custom`).
    func identity(from form: Parameters, provider: SandboxProvider) -> Result<SandboxIdentity, AuthorizationRefusal> {
        func refuse(_ text: String) -> Result<SandboxIdentity, AuthorizationRefusal> {
            .failure(AuthorizationRefusal("invalid_request", text))
        }
        let presets = provider.emulator.presets
        let choice = form["identity"] ?? (form["subject"] == nil ? nil : "custom")
        guard let choice else { return refuse("choose an identity or type a subject") }
        if choice.hasPrefix("preset-") {
            guard let index = Int(choice.dropFirst("preset-".count)), presets.indices.contains(index) else {
                return refuse("unknown preset identity '\(clip(choice))'")
            }
            return .success(presets[index])
        }
        guard choice == "custom" else { return refuse("unknown identity choice '\(clip(choice))'") }
        guard let subject = form["subject"], Self.isPrintable(subject, maximumBytes: 255) else {
            return refuse("a typed identity needs a subject of 1 to 255 printable characters")
        }
        var identity = SandboxIdentity(subject: subject)
        if let email = form["email"] {
            guard Self.isPrintable(email, maximumBytes: 254), email.contains("@"), !email.contains(" ") else {
                return refuse("the email must look like name@domain, at most 254 bytes")
            }
            identity.email = email
        }
        if let name = form["name"] {
            guard Self.isPrintable(name, maximumBytes: 200) else { return refuse("the name must be at most 200 bytes") }
            let parts = name.split(separator: " ", maxSplits: 1)
            identity.givenName = parts.first.map(String.init)
            identity.familyName = parts.count > 1 ? String(parts[1]) : nil
        }
        identity.emailVerified = form["email_verified"] == "true"
        identity.isPrivateEmail = provider == .apple && form["private_email"] == "true"
        if provider == .google, let domain = form["hosted_domain"], !domain.isEmpty {
            guard Self.isPrintable(domain, maximumBytes: 253), !domain.contains(" ") else {
                return refuse("the hosted domain must be a domain name, at most 253 bytes")
            }
            identity.hostedDomain = domain
        }
        if let refusal = provider.emulator.readConsentFields(form, into: &identity, sandbox: self) {
            return .failure(refusal)
        }
        return .success(identity)
    }

    /// Apple's first-consent `user` field: `{"name":{"firstName","lastName"},"email"}` limited to the
    /// requested scopes; `nil` when neither name nor email was asked for.
    static func appleUserField(_ authorization: AuthorizationRequest, _ identity: SandboxIdentity) -> String? {
        var user: [String: JSONValue] = [:]
        if authorization.hasScope("name") {
            user["name"] = .object([
                "firstName": .string(identity.givenName ?? ""), "lastName": .string(identity.familyName ?? ""),
            ])
        }
        if authorization.hasScope("email"), let email = identity.email { user["email"] = .string(email) }
        return user.isEmpty ? nil : JSONValue.object(user).serialized()
    }

    /// Looks up the client and checks the redirect URI, the two checks every authorization endpoint makes first.
    func registeredClient(
        _ parameters: Parameters, provider: SandboxProvider, redirectMismatchError: String = "invalid_request"
    ) -> Result<(client: SandboxClient, redirectURI: String), AuthorizationRefusal> {
        guard let clientID = parameters["client_id"] else {
            return .failure(AuthorizationRefusal("invalid_request", "missing required parameter client_id"))
        }
        guard let client = state.withLock({ $0.client(provider, clientID) }) else {
            return .failure(
                AuthorizationRefusal(
                    "invalid_client", "client_id '\(clip(clientID))' is not registered with this provider", status: 401)
            )
        }
        guard let redirectURI = parameters["redirect_uri"] else {
            return .failure(AuthorizationRefusal("invalid_request", "missing required parameter redirect_uri"))
        }
        guard client.redirectURIs.contains(redirectURI) else {
            return .failure(
                AuthorizationRefusal(
                    redirectMismatchError,
                    "redirect_uri '\(clip(redirectURI, limit: 200))' does not exactly match a registered redirect URI"))
        }
        return .success((client, redirectURI))
    }

    /// Splits a scope parameter on spaces (and, for Facebook, commas), dropping duplicates and keeping order.
    static func scopes(_ text: String?, commaSeparated: Bool = false) -> [String] {
        guard let text else { return [] }
        var seen: Set<String> = []
        return text.split(whereSeparator: { $0 == " " || (commaSeparated && $0 == ",") }).map(String.init).filter {
            seen.insert($0).inserted
        }
    }

    /// Parses `code_challenge` / `code_challenge_method` when present.
    static func challenge(
        _ parameters: Parameters, acceptLowercaseS256: Bool = false
    ) -> Result<PKCEChallenge?, AuthorizationRefusal> {
        guard let value = parameters["code_challenge"] else {
            if parameters["code_challenge_method"] != nil {
                return .failure(
                    AuthorizationRefusal("invalid_request", "code_challenge_method was sent without code_challenge"))
            }
            return .success(nil)
        }
        switch PKCEChallenge.parse(
            challenge: value, method: parameters["code_challenge_method"], acceptLowercaseS256: acceptLowercaseS256)
        {
        case .success(let challenge): return .success(challenge)
        case .failure(let problem): return .failure(AuthorizationRefusal("invalid_request", problem.description))
        }
    }

    static func isPrintable(_ text: String, maximumBytes: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumBytes
            && text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }

    func busy(_ provider: SandboxProvider) -> HTTPServerResponse {
        SandboxPages.error(
            provider: provider,
            refusal: AuthorizationRefusal(
                "temporarily_unavailable", "too many pending sign-ins; try again later", status: 503))
    }
}
