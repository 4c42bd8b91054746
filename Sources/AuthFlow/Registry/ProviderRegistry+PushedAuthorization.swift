extension ProviderRegistry {
    /// `par:` against what the provider offers and demands (RFC 9126): `required` needs a pushed
    /// authorization request endpoint; a provider that sets `require_pushed_authorization_requests` (RFC 9126
    /// §5) accepts no other request, so `par: off` there, or the demand without an endpoint, is an issue
    /// naming that field.
    static func checkPushedAuthorization(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, endpoints: ProviderEndpoints, subject: String,
        issues: inout [ConfigurationIssue]
    ) {
        let hasEndpoint = !(endpoints.pushedAuthorizationRequest ?? "").isEmpty
        let demanded = plugin.requiresPushedAuthorizationRequests
        let location = settings.location(of: "par")
        switch settings.pushedAuthorization {
        case .required where !hasEndpoint:
            issues.append(
                ResolutionIssue.make(
                    .missingEndpoint,
                    "\(subject) has par: required but no pushed authorization request endpoint (expected "
                        + "pushed_authorization_request_endpoint in the issuer's metadata or "
                        + "endpoints.pushed_authorization_request, found neither)", location))
        case .off where demanded:
            issues.append(
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject) cannot use par: off: the provider's metadata sets "
                        + "require_pushed_authorization_requests: true, so it refuses every authorization request "
                        + "that is not pushed (RFC 9126 §5); remove par: off", location))
        case .auto where demanded && !hasEndpoint:
            issues.append(
                ResolutionIssue.make(
                    .missingEndpoint,
                    "\(subject): the provider's metadata sets require_pushed_authorization_requests: true but names "
                        + "no pushed_authorization_request_endpoint; set endpoints.pushed_authorization_request",
                    location))
        default:
            break
        }
    }
}

extension ProviderRegistry {
    /// A signed request object (RFC 9101), configured or demanded, is signed with the `private_key_jwt` key, so
    /// it needs `client_auth: private_key_jwt`.
    static func checkRequestObject(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, clientAuthentication: ClientAuthentication,
        subject: String, issues: inout [ConfigurationIssue]
    ) {
        if settings.requestObject == .none, plugin.requiresSignedRequestObject {
            issues.append(
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject) cannot use request_object: none: the provider's metadata sets "
                        + "require_signed_request_object: true, so it refuses every authorization request that is not "
                        + "a signed request object (RFC 9101 §10.5); remove request_object: none",
                    settings.location(of: "request_object")))
            return
        }
        let signs = settings.requestObject == .signed || plugin.requiresSignedRequestObject
        guard signs, clientAuthentication != .privateKeyJWT else { return }
        let why =
            settings.requestObject == .signed
            ? "request_object: signed" : "the provider's metadata sets require_signed_request_object: true, so it"
        issues.append(
            ResolutionIssue.make(
                .invalidValue,
                "\(subject): \(why) needs a signed request object (RFC 9101), signed with the private_key_jwt key; "
                    + "set client_auth: private_key_jwt and private_key_file",
                settings.location(of: settings.keyLocations["request_object"] == nil ? "client_auth" : "request_object")
            ))
    }
}

extension ResolvedProvider {
    /// Whether the authorization request travels as a signed request object (RFC 9101): `request_object:
    /// signed`, or a provider that demands one (resolution makes sure `client_auth` is `private_key_jwt`).
    package var signsRequestObject: Bool {
        settings.requestObject == .signed || about.requiresSignedRequestObject
    }

    /// Where a sign-in pushes its authorization request (RFC 9126) before the redirect; `nil` when `par` is
    /// `off` or the provider has no pushed authorization request endpoint (resolution refuses `required`
    /// without one).
    package var pushedAuthorizationEndpoint: String? {
        guard settings.pushedAuthorization != .off, let url = endpoints.pushedAuthorizationRequest, !url.isEmpty
        else { return nil }
        return url
    }
}
