internal import AuthFlowJOSE

extension ProviderRegistry {
    /// Resolves every configured provider against its plugin, in file order.
    ///
    /// All problems are collected before throwing: unknown `type:` (with the nearest known type),
    /// unknown capability names, capabilities the provider cannot do (quoting the plugin's reason),
    /// required capabilities switched off, missing required keys, missing endpoints or redirect URI, and
    /// the plugin's own checks, then what the other sections name of the resolved providers
    /// (`ProviderDependentSettings`: an access rule's tenant). Each issue carries the source position the
    /// configuration kept.
    ///
    /// `credentials` decides whether a required credential needs a value (``CredentialRequirement/values``, the
    /// default: what a sign-in needs) or only its key (``CredentialRequirement/keys``: for reports such as
    /// `authflow matrix` over a template loaded in ``ConfigurationLoader/Mode/sandbox`` mode without secrets).
    ///
    /// - Throws: ``ConfigurationError`` listing every issue found.
    public func resolve(
        _ configuration: Configuration, credentials: CredentialRequirement = .values
    ) throws(ConfigurationError) -> [ResolvedProvider] {
        var resolved: [ResolvedProvider] = []
        var issues: [ConfigurationIssue] = []
        let publicURL = configuration.publicURL
        let pathPrefix = configuration.pathPrefix
        for settings in configuration.providers {
            let (provider, found) = resolution(
                of: settings, publicURL: publicURL, pathPrefix: pathPrefix, credentials: credentials)
            issues += found
            if let provider { resolved.append(provider) }
        }
        issues += configuration.providerDependentIssues(resolved: resolved)
        guard issues.isEmpty else { throw ConfigurationError(issues: issues) }
        return resolved
    }

    /// Resolves one provider's settings; `publicURL` and `pathPrefix` (`server.path_prefix`) supply the
    /// default redirect URI `{publicURL}{pathPrefix}/{name}/callback`.
    ///
    /// `credentials` as for ``resolve(_:credentials:)``.
    ///
    /// - Throws: ``ConfigurationError`` listing every issue found.
    public func resolve(
        _ settings: ProviderSettings, publicURL: String?, pathPrefix: String = Configuration.defaultPathPrefix,
        credentials: CredentialRequirement = .values
    ) throws(ConfigurationError) -> ResolvedProvider {
        let (provider, issues) = resolution(
            of: settings, publicURL: publicURL, pathPrefix: pathPrefix, credentials: credentials)
        guard issues.isEmpty, let provider else { throw ConfigurationError(issues: issues) }
        return provider
    }

    func resolution(
        of settings: ProviderSettings, publicURL: String?, pathPrefix: String = Configuration.defaultPathPrefix,
        credentials: CredentialRequirement = .values
    ) -> (ResolvedProvider?, [ConfigurationIssue]) {
        guard let registered = plugin(forType: settings.type) else { return (nil, [unknownTypeIssue(settings)]) }
        // A plugin that reads provider options (a tenant, a base URL) resolves as configured with them.
        let plugin: any ProviderPlugin
        do throws(ConfigurationError) {
            plugin = try registered.configuredPlugin(with: settings.options)
        } catch {
            return (nil, error.issues)
        }
        let subject = "provider '\(settings.name)' (type \(plugin.type))"
        if plugin.needsPreparation(for: settings) {
            return (nil, [Self.discoveryRequired(subject, settings)])
        }
        var issues: [ConfigurationIssue] = []
        let (support, enabled) = Self.capabilities(of: settings, plugin: plugin, subject: subject, issues: &issues)
        if plugin.about.ownProtocol != nil {
            return Self.resolutionWithoutOAuth(
                settings, plugin: plugin, support: support, enabled: enabled, subject: subject, issues: issues)
        }
        let clientAuthentication = Self.clientAuthentication(
            of: settings, plugin: plugin, capabilities: enabled, subject: subject, issues: &issues)
        Self.checkRequiredKeys(
            settings, plugin: plugin, capabilities: enabled, clientAuthentication: clientAuthentication,
            credentials: credentials, subject: subject, issues: &issues)
        let (endpoints, issuer) = Self.endpointsAndIssuer(
            of: settings, plugin: plugin, capabilities: enabled, subject: subject, issues: &issues)
        let redirectURI = Self.redirectURI(
            of: settings, publicURL: publicURL, pathPrefix: pathPrefix, subject: subject, issues: &issues)
        Self.checkPluginKeys(
            settings, plugin: plugin, endpoints: endpoints, issuer: issuer, subject: subject, issues: &issues)
        Self.checkPushedAuthorization(settings, plugin: plugin, endpoints: endpoints, subject: subject, issues: &issues)
        Self.checkRequestObject(
            settings, plugin: plugin, clientAuthentication: clientAuthentication, subject: subject, issues: &issues)
        Self.checkDPoP(settings, plugin: plugin, subject: subject, issues: &issues)
        Self.checkIDTokenAlgorithm(settings, plugin: plugin, subject: subject, issues: &issues)
        Self.checkProfile(
            settings, plugin: plugin, endpoints: endpoints, clientAuthentication: clientAuthentication,
            capabilities: enabled, profileTypes: types(supporting: settings.profile), subject: subject,
            issues: &issues)
        issues += plugin.validate(settings, capabilities: enabled)

        guard issues.isEmpty, let clientID = settings.clientID, let redirectURI else { return (nil, issues) }

        var scopes = settings.scopes ?? plugin.defaultScopes(capabilities: enabled)
        if enabled.contains(.oidc), !scopes.contains("openid") { scopes.insert("openid", at: 0) }
        var audiences = [clientID]
        for audience in settings.audiences where !audiences.contains(audience) { audiences.append(audience) }
        let accepted: Set<String> = issuer.map { plugin.acceptedIssuers(for: $0).union([$0]) } ?? []

        let provider = ResolvedProvider(
            name: settings.name, plugin: plugin, settings: settings, capabilitySupport: support, capabilities: enabled,
            clientID: clientID, audiences: audiences, endpoints: endpoints, scopes: scopes, issuer: issuer,
            acceptedIssuers: accepted, redirectURI: redirectURI,
            clientAuthentication: clientAuthentication)
        return (provider, [])
    }

    /// `redirect_uri`, else `{publicURL}{pathPrefix}/{name}/callback`; an issue when there is neither.
    private static func redirectURI(
        of settings: ProviderSettings, publicURL: String?, pathPrefix: String, subject: String,
        issues: inout [ConfigurationIssue]
    ) -> String? {
        let redirectURI =
            settings.redirectURI ?? publicURL.map { settings.redirectURI(publicURL: $0, pathPrefix: pathPrefix) }
        if redirectURI == nil {
            issues.append(
                ResolutionIssue.make(
                    .missingRedirectURI, "\(subject) has no redirect URI; set redirect_uri or server.public_url",
                    settings.location))
        }
        return redirectURI
    }

    /// A provider with routes of its own and no OAuth round trip (passkeys): no client, endpoints or redirect URI;
    /// the keys of OAuth providers are refused, and the plugin checks its own.
    private static func resolutionWithoutOAuth(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, support: [Capability: CapabilitySupport],
        enabled: Set<Capability>, subject: String, issues found: [ConfigurationIssue]
    ) -> (ResolvedProvider?, [ConfigurationIssue]) {
        var issues = found
        let oauthKeys = ConfigurationReader.providerKeys.filter { $0 != "type" }
        for key in oauthKeys where settings.keyLocations[key] != nil {
            issues.append(
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject) does not take '\(key)' (a key of OAuth providers; \(plugin.displayName) signs in "
                        + "without a round trip to a provider)", settings.location(of: key)))
        }
        checkPluginKeys(
            settings, plugin: plugin, endpoints: ProviderEndpoints(), issuer: nil, subject: subject, issues: &issues)
        issues += plugin.validate(settings, capabilities: enabled)
        guard issues.isEmpty else { return (nil, issues) }
        let provider = ResolvedProvider(
            name: settings.name, plugin: plugin, settings: settings, capabilitySupport: support, capabilities: enabled,
            clientID: "", audiences: [], endpoints: ProviderEndpoints(), scopes: [], issuer: nil, acceptedIssuers: [],
            redirectURI: "", clientAuthentication: plugin.clientAuthentication(capabilities: enabled))
        return (provider, [])
    }

    /// The issue of a `type:` no plugin answers to, with the nearest known type.
    private func unknownTypeIssue(_ settings: ProviderSettings) -> ConfigurationIssue {
        var message = "unknown provider type '\(settings.type)' for provider '\(settings.name)'"
        if let suggestion = EditDistance.nearest(to: settings.type, in: types) {
            message += "; did you mean '\(suggestion)'?"
        }
        message += " (known types: \(types.joined(separator: ", ")))"
        return ResolutionIssue.make(.unknownProviderType, message, settings.typeLocation ?? settings.location)
    }

    /// Capabilities: the configured switches against the plugin's support, and unknown capability names.
    private static func capabilities(
        of settings: ProviderSettings, plugin: any ProviderPlugin, subject: String, issues: inout [ConfigurationIssue]
    ) -> ([Capability: CapabilitySupport], Set<Capability>) {
        var support: [Capability: CapabilitySupport] = [:]
        var enabled: Set<Capability> = []
        for capability in Capability.allCases {
            let declared = plugin.support(for: capability, settings: settings)
            support[capability] = declared
            let requested = settings.capabilities[capability.rawValue]
            let location = settings.capabilityLocations[capability.rawValue] ?? settings.location
            switch (declared, requested) {
            case (.unsupported(let reason), true?):
                issues.append(
                    ResolutionIssue.make(
                        .unsupportedCapability, "\(subject) cannot enable \(capability): \(reason)", location))
            case (.required, false?):
                issues.append(
                    ResolutionIssue.make(
                        .requiredCapability, "\(subject) requires \(capability); it cannot be disabled", location))
            case (.required, _):
                enabled.insert(capability)
            case (.optional(let byDefault), let requested):
                if requested ?? byDefault { enabled.insert(capability) }
            case (.unsupported, _):
                break
            }
        }
        let known = Capability.allCases.map(\.rawValue)
        for key in settings.capabilities.keys.sorted() where Capability(rawValue: key) == nil {
            var message = "unknown capability '\(key)' for provider '\(settings.name)'"
            if let suggestion = EditDistance.nearest(to: key, in: known) {
                message += "; did you mean '\(suggestion)'?"
            }
            message += " (known capabilities: \(known.joined(separator: ", ")))"
            issues.append(
                ResolutionIssue.make(
                    .unknownCapability, message, settings.capabilityLocations[key] ?? settings.location))
        }
        return (support, enabled)
    }

    /// Required keys (a private_key_jwt client signs with private_key_file instead of sending a secret).
    private static func checkRequiredKeys(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, capabilities: Set<Capability>,
        clientAuthentication: ClientAuthentication, credentials: CredentialRequirement, subject: String,
        issues: inout [ConfigurationIssue]
    ) {
        var required: [ProviderSettingKey] = [.clientID]
        var pluginRequired = plugin.tokenEndpoint.requiredSettingKeys(capabilities: capabilities)
        if clientAuthentication == .privateKeyJWT {
            pluginRequired = pluginRequired.filter { $0 != .clientSecret } + [.privateKey]
        }
        for key in pluginRequired where !required.contains(key) { required.append(key) }
        for key in required where !key.isPresent(in: settings) && !credentials.accepts(key, writtenIn: settings) {
            let alternative = key == .clientSecret ? " (or 'client_secret_file')" : ""
            issues.append(
                ResolutionIssue.make(
                    .missingRequiredKey, "\(subject) requires '\(key)'\(alternative)", settings.location))
        }
    }

    /// The endpoints (defaults overridden by `endpoints:`) and the issuer, each one the flow needs present.
    private static func endpointsAndIssuer(
        of settings: ProviderSettings, plugin: any ProviderPlugin, capabilities enabled: Set<Capability>,
        subject: String, issues: inout [ConfigurationIssue]
    ) -> (ProviderEndpoints, String?) {
        var endpoints = plugin.defaultEndpoints.overridden(by: settings.endpoints)
        let callsUserinfo = !enabled.contains(.oidc) || plugin.fetchesUserinfoWithIDToken
        var needed: [(String, String?)] = [("authorization", endpoints.authorization), ("token", endpoints.token)]
        if enabled.contains(.oidc) { needed.append(("jwks", endpoints.jwks)) }
        if callsUserinfo { needed.append(("userinfo", endpoints.userinfo)) }
        for (key, value) in needed where (value ?? "").isEmpty {
            issues.append(
                ResolutionIssue.make(
                    .missingEndpoint, "\(subject) has no \(key) endpoint; set endpoints.\(key)", settings.location))
        }
        var issuer = settings.issuer ?? plugin.defaultIssuer
        // Native tokens of a provider whose web flow verifies none (Facebook Limited Login).
        if !settings.nativeClients.isEmpty, let source = plugin.nativeSignIn?.tokenSource {
            if (endpoints.jwks ?? "").isEmpty { endpoints.jwks = source.jwks }
            if (issuer ?? "").isEmpty { issuer = source.issuer }
        }
        if enabled.contains(.oidc), (issuer ?? "").isEmpty {
            issues.append(
                ResolutionIssue.make(
                    .missingIssuer, "\(subject) has oidc enabled but no issuer; set issuer", settings.location))
        }
        return (endpoints, issuer)
    }

    /// Keys only some plugins take: `native_clients`, `claims`, and the provider options.
    private static func checkPluginKeys(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, endpoints: ProviderEndpoints, issuer: String?,
        subject: String, issues: inout [ConfigurationIssue]
    ) {
        if !settings.nativeClients.isEmpty {
            if plugin.nativeSignIn == nil {
                issues.append(
                    ResolutionIssue.make(
                        .invalidValue,
                        "\(subject) cannot take native_clients: its provider issues no ID tokens to native apps "
                            + "(native sign-in works with apple, google, facebook Limited Login and oidc)",
                        settings.location(of: "native_clients")))
            } else if (endpoints.jwks ?? "").isEmpty || (issuer ?? "").isEmpty {
                issues.append(
                    ResolutionIssue.make(
                        .missingEndpoint,
                        "\(subject) has native_clients but no jwks endpoint or issuer to verify their ID tokens; "
                            + "set endpoints.jwks and issuer", settings.location(of: "native_clients")))
            }
        }
        if settings.claims != nil, !plugin.about.supportsClaimMapping {
            issues.append(
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject) cannot take claims: its plugin reads the identity its own way (claims work with "
                        + "type oidc and type oauth2)", settings.location(of: "claims")))
        }
        let readable = plugin.declaredOptionKeys
        for key in settings.options.keys.sorted() where !readable.contains(key) {
            issues.append(
                ResolutionIssue.make(
                    .invalidValue, "\(subject) does not take '\(key)' (a key of other provider types)",
                    settings.location(of: key)))
        }
    }

    /// The method in effect: `client_auth` when the plugin allows it (a ``TokenEndpointStrategy``
    /// choice, else its one method), otherwise the default; a `private_key_jwt` key must be EC P-256
    /// or RSA.
    static func clientAuthentication(
        of settings: ProviderSettings, plugin: any ProviderPlugin, capabilities: Set<Capability>, subject: String,
        issues: inout [ConfigurationIssue]
    ) -> ClientAuthentication {
        let choice = plugin.tokenEndpoint.choice(for: settings, capabilities: capabilities)
        let byDefault = choice?.defaultMethod ?? plugin.clientAuthentication(capabilities: capabilities)
        guard let configured = settings.clientAuthentication else { return byDefault }
        let allowed = choice?.allowed ?? [byDefault]
        guard allowed.contains(configured) else {
            let names = allowed.map(\.rawValue).joined(separator: ", ")
            let reason =
                if let advertised = choice?.advertised {
                    "the issuer's discovery document lists token_endpoint_auth_methods_supported "
                        + "[\(advertised.joined(separator: ", "))], so client_auth may be: \(names)"
                } else {
                    "\(plugin.displayName) allows only: \(names)"
                }
            issues.append(
                ResolutionIssue.make(
                    .unsupportedClientAuthentication,
                    "\(subject) cannot use client_auth \(configured.rawValue): \(reason)",
                    settings.location(of: "client_auth")))
            return byDefault
        }
        if configured == .privateKeyJWT, let pem = settings.privateKey?.value {
            do throws(JOSEError) {
                _ = try ClientAssertion.algorithm(for: JWK(pkcs8PEM: pem))
            } catch {
                issues.append(
                    ResolutionIssue.make(
                        .invalidValue,
                        "\(subject): expected private_key_file to hold an EC P-256 or RSA private key for "
                            + "client_auth private_key_jwt, found \(error.code)",
                        settings.location(of: "private_key_file")))
            }
        }
        return configured
    }
}

extension ProviderRegistry {
    /// How resolution treats the credentials a plugin requires (`client_id`, `client_secret`/`client_secret_file`,
    /// `private_key_file`, `team_id`, `key_id`: the keys ``ConfigurationLoader/Mode/sandbox`` loading may leave
    /// unresolved).
    public enum CredentialRequirement: Sendable, Hashable {
        /// Every required credential must have a value (a set `${VAR}`, a readable file): what a sign-in needs.
        case values
        /// A required credential whose key is written counts as present even without a value, so a report can
        /// describe a configuration template on a machine without its secrets. A key that is not written at all
        /// is still reported, and credentials that do have a value are still checked by the plugin.
        case keys

        /// Whether `key` is accepted as present in `settings` although it has no value.
        func accepts(_ key: ProviderSettingKey, writtenIn settings: ProviderSettings) -> Bool {
            guard self == .keys else { return false }
            let written: [String] =
                switch key {
                case .clientID: ["client_id"]
                case .clientSecret: ["client_secret", "client_secret_file"]
                case .privateKey: ["private_key_file"]
                case .teamID: ["team_id"]
                case .keyID: ["key_id"]
                default: []
                }
            return written.contains { settings.keyLocations[$0] != nil }
        }
    }

    /// The issue of a provider that only the asynchronous resolution can resolve.
    static func discoveryRequired(_ subject: String, _ settings: ProviderSettings) -> ConfigurationIssue {
        ResolutionIssue.make(
            .discoveryRequired,
            "\(subject) takes its settings from its issuer's discovery document, which this synchronous "
                + "resolution cannot fetch; resolve with the asynchronous SignInServer(resolving:registry:stores:"
                + "httpClient:) or ProviderRegistry.resolve(_:httpClient:)",
            settings.location(of: "issuer"))
    }
}
