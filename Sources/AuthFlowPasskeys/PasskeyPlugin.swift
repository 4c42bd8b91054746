package import AuthFlow

/// Passkeys (`type: passkey`): WebAuthn as a provider beside OAuth, on the same accounts and sessions.
///
/// A passkey provider has no client, endpoints or redirect URI: the server answers its ceremonies on routes of
/// its own (`{prefix}/{name}/register/options`, `register`, `authenticate/options`, `authenticate`,
/// `credentials`) and verifies each assertion locally against the credential registered for the user, so none of
/// the four OAuth capabilities applies. Its keys are the relying party's (``PasskeyOptions``): `rp_id` (default:
/// the host of `server.public_url`), `rp_name` (default: `rp_id`), `origins` (default: `server.public_url`'s
/// origin), `user_verification` (`required`, the default, or `preferred`) and `attestation` (`none`, the
/// default, or `direct`). docs/configuration.md describes them.
package struct PasskeyPlugin: PreparedPlugin, RelyingPartyPlugin, ProviderPreparing {
    /// The relying-party keys as configured (none before configuration).
    package let options: PasskeyOptions

    package init(options: PasskeyOptions = PasskeyOptions()) { self.options = options }

    /// WebAuthn; identity from an assertion verified locally; no endpoints.
    package var about: ProviderDescription {
        var description = ProviderDescription(
            type: "passkey", displayName: "Passkey", endpoints: ProviderEndpoints(), idTokenAlgorithms: [],
            noncePolicy: .required,
            emailLinkability: .never(reason: "a passkey carries no email address"))
        description.ownProtocol = .webAuthn
        return description
    }

    /// No client authenticates anywhere; the description's method is never used.
    package var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }

    /// The plugin itself: it reads the relying-party keys.
    package var preparation: any ProviderPreparing { self }

    /// `rp_id`, `rp_name`, `origins`, `user_verification`, `attestation`.
    package var optionKeys: Set<String> { Set(PasskeyOptions.keys) }

    /// The plugin with the provider's relying-party keys.
    ///
    /// - Throws: ``ConfigurationError`` with every key of the wrong type or form, at its position.
    package func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin {
        PasskeyPlugin(options: try PasskeyOptions(reading: options))
    }

    /// The relying party in effect.
    package var relyingParty: PasskeyRelyingPartySettings? { options.effective }

    /// Every capability is unsupported: they are options of the OAuth round trip a passkey does not make.
    package func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        let reason =
            switch capability {
            case .pkce: "a passkey sign-in has no authorization code to protect"
            case .oidc: "a passkey sign-in verifies a WebAuthn assertion locally; there is no id_token"
            case .jwtClientAuth: "a passkey provider has no token endpoint to authenticate at"
            case .formPost: "a passkey sign-in has no callback"
            }
        return .unsupported(reason: reason)
    }

    /// The relying party fits together: `rp_id` and `origins` are known (written, or from `server.public_url`),
    /// and `rp_id` is a registrable suffix of every web origin's host (WebAuthn Level 3 §5.1.3 and the HTML
    /// standard's "is a registrable domain suffix of or is equal to").
    package func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] {
        let subject = "provider '\(settings.name)' (type passkey)"
        guard let relyingParty = options.effective else {
            let missing =
                options.rpID == nil && options.origins == nil
                ? "rp_id and origins" : options.rpID == nil ? "rp_id" : "origins"
            return [
                ResolutionIssue.make(
                    .missingRequiredKey,
                    "\(subject) has no \(missing); set \(missing) or server.public_url (their default)",
                    settings.location)
            ]
        }
        var issues: [ConfigurationIssue] = []
        if let problem = RelyingPartyID.problem(relyingParty.rpID) {
            issues.append(
                ResolutionIssue.make(
                    .invalidValue, "\(subject): rp_id \(relyingParty.rpID) \(problem)", settings.location(of: "rp_id")))
        }
        for origin in relyingParty.origins {
            guard let host = PasskeyOptions.host(ofWebOrigin: origin),
                !RelyingPartyID.covers(host: host, rpID: relyingParty.rpID)
            else { continue }
            let written = options.origins == nil ? "server.public_url's origin" : "origin"
            issues.append(
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject): expected rp_id to be \(host) or a registrable suffix of it (the host of the "
                        + "\(written) \(origin)), found \(relyingParty.rpID)",
                    settings.location(of: options.origins == nil ? "rp_id" : "origins")))
        }
        return issues
    }
}
