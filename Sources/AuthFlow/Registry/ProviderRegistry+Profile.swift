import AuthFlowJOSE

extension ProviderRegistry {
    /// `id_token_signed_response_alg` against the issuer's `id_token_signing_alg_values_supported`: an algorithm
    /// the issuer does not advertise would refuse every id_token, so it is an issue at that key.
    static func checkIDTokenAlgorithm(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, subject: String, issues: inout [ConfigurationIssue]
    ) {
        guard let registered = settings.idTokenSignedResponseAlgorithm else { return }
        if settings.profile == .fapi2, !ResolvedProvider.fapi2Algorithms.contains(registered) {
            issues.append(
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject) has profile: fapi2, which allows id_tokens signed PS256, ES256 or EdDSA only, but "
                        + "id_token_signed_response_alg is \(registered.rawValue)",
                    settings.location(of: "id_token_signed_response_alg")))
            return
        }
        let advertised = plugin.idTokenAlgorithms.subtracting([.hs256])
        guard !advertised.contains(registered) else { return }
        issues.append(
            ResolutionIssue.make(
                .invalidValue,
                "\(subject) has id_token_signed_response_alg: \(registered.rawValue), but its id_tokens are signed "
                    + (advertised.isEmpty
                        ? "with none of the algorithms AuthFlow verifies"
                        : "with " + advertised.map(\.rawValue).sorted().joined(separator: ", ")
                            + " (the issuer's id_token_signing_alg_values_supported)"),
                settings.location(of: "id_token_signed_response_alg")))
    }

    /// `profile: fapi2` (the FAPI 2.0 Security Profile's client requirements) against the rest of the
    /// configuration and what the issuer advertises: each key that contradicts it, and each thing the issuer
    /// lacks, is an issue at that key (or at `profile:`, naming the discovery field). `profileTypes` are the types
    /// whose plugin declares the profile (``ProviderDescription/profiles``), named when the provider's does not.
    static func checkProfile(
        _ settings: ProviderSettings, plugin: any ProviderPlugin, endpoints: ProviderEndpoints,
        clientAuthentication: ClientAuthentication, capabilities: Set<Capability>, profileTypes: [String],
        subject: String, issues: inout [ConfigurationIssue]
    ) {
        guard settings.profile == .fapi2 else { return }
        func issue(_ kind: ResolutionIssue.Kind, _ why: String, at key: String) {
            let location = settings.keyLocations[key] == nil ? "profile" : key
            issues.append(
                ResolutionIssue.make(
                    kind, "\(subject) has profile: fapi2, which \(why)", settings.location(of: location)))
        }
        guard plugin.about.profiles.contains(.fapi2) else {
            let types =
                profileTypes.isEmpty ? "no registered type" : "type: " + profileTypes.joined(separator: " or ")
            issue(.invalidValue, "applies to \(types) only (found type \(plugin.type)); remove profile", at: "profile")
            return
        }
        if settings.pushedAuthorization == .off {
            issue(.invalidValue, "requires pushed authorization requests (RFC 9126); remove par: off", at: "par")
        } else if (endpoints.pushedAuthorizationRequest ?? "").isEmpty {
            issue(
                .missingEndpoint,
                "requires pushed authorization requests, but the issuer's metadata has no "
                    + "pushed_authorization_request_endpoint (nor is endpoints.pushed_authorization_request set)",
                at: "profile")
        }
        if !capabilities.contains(.pkce) {
            issue(.invalidValue, "requires PKCE with S256; remove capabilities.pkce: false", at: "capabilities.pkce")
        }
        if clientAuthentication != .privateKeyJWT {
            issue(
                .invalidValue,
                "requires client_auth: private_key_jwt (found \(clientAuthentication.rawValue)); set it with "
                    + "private_key_file", at: "client_auth")
        }
        if settings.dpop == .off {
            issue(.invalidValue, "requires DPoP-bound tokens (RFC 9449); remove dpop: false", at: "dpop")
        }
        let advertised = plugin.idTokenAlgorithms.subtracting([.hs256])
        if !advertised.isEmpty, advertised.isDisjoint(with: ResolvedProvider.fapi2Algorithms) {
            issue(
                .invalidValue,
                "allows id_tokens signed PS256, ES256 or EdDSA only, but the issuer's "
                    + "id_token_signing_alg_values_supported names "
                    + advertised.map(\.rawValue).sorted().joined(separator: ", "), at: "profile")
        }
    }
}
