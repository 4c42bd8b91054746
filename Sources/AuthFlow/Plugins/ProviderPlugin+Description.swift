package import AuthFlowJOSE

/// The project's own reading of a plugin, answered from its description and strategies (names that a
/// strategy's requirements also use are spelled differently here, so a plugin that is its own strategy stays
/// unambiguous).
extension ProviderPlugin {
    package var type: String { about.type }

    package var displayName: String { about.displayName }

    package var defaultEndpoints: ProviderEndpoints { about.endpoints }

    package var defaultIssuer: String? { about.issuer }

    package func defaultScopes(capabilities: Set<Capability>) -> [String] { about.scopes }

    package func acceptedIssuers(for issuer: String) -> Set<String> {
        let description = about
        return issuer == description.issuer ? description.issuerAliases.union([issuer]) : [issuer]
    }

    package func issuerTemplate(for issuer: String) -> IssuerTemplate? {
        guard let form = about.issuerPlaceholder, issuer.contains(form.placeholder) else { return nil }
        return IssuerTemplate(template: issuer, placeholder: form.placeholder, claim: form.claim)
    }

    package var idTokenAlgorithms: Set<JWSAlgorithm> { about.idTokenAlgorithms }

    package var noncePolicy: NoncePolicy { about.noncePolicy }

    package var refreshTokenRequest: RefreshTokenRequest { about.refreshTokenRequest }

    package var emailLinkability: EmailLinkability { about.emailLinkability }

    package var fetchesUserinfoWithIDToken: Bool { about.fetchesUserinfoWithIDToken }

    package var sendsIssuerInAuthorizationResponse: Bool { about.sendsIssuerInAuthorizationResponse }

    package var keepsUnverifiedProfile: Bool { about.keepsUnverifiedProfile }

    package var requiresPushedAuthorizationRequests: Bool { about.requiresPushedAuthorizationRequests }

    package var requiresSignedRequestObject: Bool { about.requiresSignedRequestObject }
    package var dpopSigningAlgorithms: [String]? { about.dpopSigningAlgorithms }

    package var nativeSignIn: NativeSignInDescription? { about.nativeSignIn }

    package func clientAuthentication(capabilities: Set<Capability>) -> ClientAuthentication {
        tokenEndpoint.method(capabilities: capabilities)
    }

    /// The identity of a sign-in's userinfo responses, refused when there are none.
    package func identity(fromUserinfoResponses responses: [JSONValue], provider: ResolvedProvider)
        throws(SignInError) -> VerifiedIdentity
    {
        guard !responses.isEmpty else {
            throw SignInError(
                .userinfoError, "expected a profile from the userinfo endpoint, found none", provider: provider.name)
        }
        return try identity.identity(fromUserinfo: responses, provider: provider)
    }

    package func declaredEventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] {
        events?.eventEndpoints(for: provider) ?? []
    }

    package func handleDeclaredEvent(_ request: ProviderEventRequest, context: ProviderEventContext)
        async throws(ProviderEventError) -> ProviderEventOutcome
    {
        guard let events else {
            throw ProviderEventError(
                code: "not_found", "expected an event endpoint of provider type \(type), found none at this path",
                status: 404)
        }
        return try await events.handleEvent(request, context: context)
    }

    /// The set-up of a built-in plugin that has one (``PreparedPlugin``); `nil` for any other plugin.
    package var preparing: (any ProviderPreparing)? { (self as? any PreparedPlugin)?.preparation }

    /// The advice of a built-in plugin that gives some (``AdvisingPlugin``); none for any other plugin.
    package func advice(on provider: ResolvedProvider) -> [ProviderAdvice] {
        (self as? any AdvisingPlugin)?.advice(for: provider) ?? []
    }

    package func needsPreparation(for settings: ProviderSettings) -> Bool {
        preparing?.requiresPreparation(for: settings) ?? false
    }

    package func preparedPlugin(for settings: ProviderSettings, context: ProviderPreparation)
        async throws(ConfigurationError) -> any ProviderPlugin
    {
        guard let preparing else { return self }
        return try await preparing.prepared(for: settings, context: context)
    }

    /// The plugin configured with `options`; a plugin without set-up reads none and stays itself.
    ///
    /// - Throws: ``ConfigurationError`` with every option of the wrong type or form.
    package func configuredPlugin(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin {
        guard let preparing else { return self }
        return try preparing.configured(with: options)
    }

    /// The provider option keys the plugin reads (none without set-up).
    package var declaredOptionKeys: Set<String> { preparing?.optionKeys ?? [] }
}
