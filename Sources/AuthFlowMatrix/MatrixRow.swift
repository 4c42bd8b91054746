package import AuthFlow

/// One provider's row of the capability matrix, computed from the `ResolvedProvider` that `OAuthFlow` runs with.
package struct MatrixRow: Sendable, Hashable {
    /// The provider's name in configuration (`providers.<name>`).
    package let name: String
    /// The plugin type (`type:`).
    package let type: String
    /// The plugin's human-readable name, e.g. `Google`.
    package let displayName: String
    /// OAuth 2.0 or OpenID Connect.
    package let signInProtocol: SignInProtocol
    /// Where the identity comes from: a locally verified id_token or the userinfo endpoint.
    package let identitySource: IdentitySource
    /// How the client authenticates at the token endpoint.
    package let clientAuthentication: ClientAuthentication
    /// Whether sign-ins push their authorization request first (RFC 9126, `par`).
    package let pushedAuthorization: Bool
    /// Whether the authorization request is a signed request object (RFC 9101, `request_object`).
    package let signedRequestObject: Bool
    /// Whether the provider's tokens are bound to a DPoP key (RFC 9449, `dpop`).
    package let dpop: Bool
    /// The security profile in effect (`profile: fapi2`), or `nil`.
    package let profile: String?
    /// How the provider returns to the callback: GET query or POST form_post.
    package let callbackMethod: CallbackMethod
    /// Provider calls per sign-in with the JWKS cached.
    package let roundTrips: Int
    /// Every capability, in declaration order (pkce, oidc, jwt_client_auth, form_post).
    package let capabilities: [CapabilityState]
    /// Hardening advice and notes for this provider.
    package let advisories: [Advisory]
    /// Whether the provider's plugin accepts ID tokens from native apps (`POST /auth/{name}/native`).
    package let nativeSupported: Bool
    /// The configured `native_clients`; native sign-in is on when this is not empty.
    package let nativeClients: [String]
    /// Whether the provider has an end-session endpoint (OpenID Connect RP-Initiated Logout): `POST /auth/logout`
    /// with `provider_logout=1` then logs out at the provider too; otherwise the logout is local only.
    package let providerLogout: Bool
    /// When the plugin vouches for an email as linkable by `link_by_verified_email`.
    package let emailLinkability: EmailLinkability
    /// The organisation rules that refuse a sign-in outside them (`hosted_domain`, `allowed_organizations`,
    /// `allowed_teams`), in that order; empty when the provider has none.
    package let organizationRules: [OrganizationRule]

    /// One organisation rule: the configuration key, the values it allows (lower-cased, sorted) and the error
    /// code a sign-in outside them is refused with.
    package struct OrganizationRule: Sendable, Hashable {
        package let key: String
        package let values: [String]
        package let refusal: String
    }

    /// Computes the row of `provider`.
    ///
    /// - Parameters:
    ///   - provider: the resolved provider.
    ///   - storesTokens: whether the deployment keeps provider tokens (`authflow serve` stores them in the account
    ///     store); enables the refresh-token advisory.
    ///   - options: the options `OAuthFlow` runs with (the client-secret JWT lifetime is reported).
    ///   - accessAdvice: advice about the deployment's access rules that concerns this provider too, listed after
    ///     the provider's own.
    package init(
        provider: ResolvedProvider, storesTokens: Bool = true, options: SignIn.Options = .init(),
        accessAdvice: [ProviderAdvice] = []
    ) {
        name = provider.name
        type = provider.type
        displayName = provider.plugin.displayName
        signInProtocol = provider.signInProtocol
        identitySource = provider.identitySource
        clientAuthentication = provider.clientAuthentication
        pushedAuthorization = provider.pushedAuthorizationEndpoint != nil
        signedRequestObject = provider.signsRequestObject
        dpop = provider.dpopAlgorithm != nil
        profile = provider.settings.profile == .none ? nil : provider.settings.profile.rawValue
        callbackMethod = provider.callbackMethod
        roundTrips = provider.roundTrips
        capabilities = Capability.allCases.map { capability in
            CapabilityState(
                capability: capability,
                support: provider.capabilitySupport[capability] ?? .unsupported(reason: "not declared by the plugin"),
                enabled: provider.isEnabled(capability))
        }
        advisories =
            Advisor(provider: provider, storesTokens: storesTokens, options: options).advisories()
            + accessAdvice.map { Advisor.advisory($0, provider: provider.name) }
        nativeSupported = provider.plugin.about.nativeSignIn != nil
        nativeClients = provider.nativeClients
        providerLogout = provider.endpoints.endSession.map { !$0.isEmpty } ?? false
        emailLinkability = provider.plugin.emailLinkability
        organizationRules = Self.organizationRules(provider.settings.options)
    }

    /// The organisation rules set in `options` (already read by the provider's plugin): Google's `hosted_domain`
    /// (the id_token's `hd` claim), GitHub's `allowed_organizations` and `allowed_teams` (read with `read:org`).
    static func organizationRules(_ options: ProviderOptions) -> [OrganizationRule] {
        var rules: [OrganizationRule] = []
        if let domain = options.text("hosted_domain").flatMap(AccessRules.normalizedDomain) {
            rules.append(OrganizationRule(key: "hosted_domain", values: [domain], refusal: "hosted_domain_mismatch"))
        }
        if let organizations = options.texts("allowed_organizations") {
            rules.append(
                OrganizationRule(
                    key: "allowed_organizations", values: organizations.map { $0.lowercased() }.sorted(),
                    refusal: "organization_not_allowed"))
        }
        if let teams = options.texts("allowed_teams") {
            rules.append(
                OrganizationRule(
                    key: "allowed_teams", values: teams.map { $0.lowercased() }.sorted(), refusal: "team_not_allowed"))
        }
        return rules
    }

    /// The client authentication cell: the method, or `-` for a provider without an OAuth client (passkeys).
    var clientAuthLabel: String { signInProtocol == .webAuthn ? "-" : clientAuthentication.rawValue }

    /// The callback cell: `GET`/`POST`, or `-` for a provider without a callback (passkeys).
    var callbackLabel: String { signInProtocol == .webAuthn ? "-" : callbackMethod.rawValue }

    /// The native sign-in cell: `on (N apps)`, `off` (supported, no `native_clients`) or `unsupported`.
    var nativeLabel: String {
        guard nativeSupported else { return "unsupported" }
        guard !nativeClients.isEmpty else { return "off" }
        return "on (\(nativeClients.count) app\(nativeClients.count == 1 ? "" : "s"))"
    }

    /// The state of `capability`.
    package func state(of capability: Capability) -> CapabilityState {
        capabilities.first { $0.capability == capability }
            ?? CapabilityState(capability: capability, support: .unsupported(reason: "not declared"), enabled: false)
    }
}
