import AuthFlow
import AuthFlowJOSE

/// Works out a provider's advisories from the same resolved values the flow runs with.
struct Advisor {
    let provider: ResolvedProvider
    let storesTokens: Bool
    let options: OAuthFlow.Options

    /// The order capability advice is given in: identity first, then the code exchange, then the callback.
    static let adviceOrder: [Capability] = [.oidc, .pkce, .jwtClientAuth, .formPost]

    /// Hardening advice first, then notes.
    func advisories() -> [Advisory] {
        var found: [Advisory] = []
        // A provider without an OAuth round trip (passkeys) has no capability, client or token to advise on.
        guard provider.usesOAuth else {
            return provider.plugin.advice(on: provider).map { Self.advisory($0, provider: provider.name) }
        }
        for capability in Self.adviceOrder {
            if let advisory = capabilityOff(capability) { found.append(advisory) }
        }
        if let advisory = clientAuthentication() { found.append(advisory) }
        if let advisory = clientSecretLifetime() { found.append(advisory) }
        for advice in provider.plugin.advice(on: provider) {
            found.append(Self.advisory(advice, provider: provider.name))
        }
        if let advisory = refreshToken() { found.append(advisory) }
        return found
    }

    /// `advice` as an advisory of the provider named `provider`: its key, when it has one, to set as YAML.
    static func advisory(_ advice: ProviderAdvice, provider: String) -> Advisory {
        let change: [Advisory.Fragment] =
            advice.key.map { [.text("set "), .yaml($0), .text(" " + advice.change)] } ?? [.text(advice.change)]
        return Advisory(
            provider: provider, code: Advisory.Code(rawValue: advice.code),
            severity: advice.hardening ? .hardening : .note, finding: advice.finding, change: change)
    }

    /// An optional capability that is off, with what switching it on brings.
    func capabilityOff(_ capability: Capability) -> Advisory? {
        guard case .optional = provider.capabilitySupport[capability], !provider.isEnabled(capability) else {
            return nil
        }
        let finding: String
        var change: [Advisory.Fragment] = [.text("set "), .yaml("capabilities.\(capability.rawValue): true")]
        switch capability {
        case .oidc:
            finding = "OIDC available but off — identity trusted over TLS only"
            let withOIDC = 1 + (provider.plugin.fetchesUserinfoWithIDToken ? 1 : 0)
            let saved = provider.roundTrips - withOIDC
            change.append(
                .text(
                    saved == 1
                        ? " (one round trip fewer)"
                        : saved > 1 ? " (\(saved) round trips fewer)" : " (the id_token is then verified locally)"))
        case .pkce:
            finding = "PKCE available but off — an intercepted authorization code could be redeemed without a verifier"
        case .jwtClientAuth:
            finding =
                "signed-JWT client authentication available but off — a static client secret is sent to the token endpoint"
        case .formPost:
            finding =
                "form_post available but off — the authorization code travels in the callback URL (history, logs, Referer)"
        }
        return Advisory(
            provider: provider.name, code: .capabilityOff, severity: .hardening, capability: capability,
            finding: finding, change: change)
    }

    /// A static client secret where the provider also allows `private_key_jwt`, the hardened choice: no
    /// shared secret travels, and each assertion is short-lived and bound to the token endpoint.
    func clientAuthentication() -> Advisory? {
        guard provider.clientAuthentication != .privateKeyJWT,
            let choice = provider.plugin.tokenEndpoint.choice(
                for: provider.settings, capabilities: provider.capabilities),
            choice.allowed.contains(.privateKeyJWT)
        else { return nil }
        return Advisory(
            provider: provider.name, code: .clientAuthentication, severity: .hardening,
            finding:
                "\(provider.clientAuthentication.rawValue) sends a static client secret to the token endpoint — "
                + "private_key_jwt is the hardened choice here (a short-lived signed assertion, no shared secret)",
            change: [
                .text("set "), .yaml("client_auth: private_key_jwt"), .text(" with "), .yaml("private_key_file"),
                .text(" (EC P-256 or RSA) and register its public key with the provider"),
            ])
    }

    /// The lifetime of a minted client-secret JWT against the provider's limit (Apple: 15,777,000 s).
    func clientSecretLifetime() -> Advisory? {
        guard provider.clientAuthentication == .es256ClientSecretJWT else { return nil }
        let lifetime = min(max(options.clientSecretLifetime, 1), AppleClientSecret.maximumLifetime)
        let maximumDays = AppleClientSecret.maximumLifetime / 86_400
        return Advisory(
            provider: provider.name, code: .clientSecretLifetime, severity: .note,
            finding:
                "the ES256 client secret is minted for each token request and valid \(lifetime) s "
                + "(\(provider.plugin.displayName)'s limit: \(AppleClientSecret.maximumLifetime) s, about "
                + "\(maximumDays) days), so none expires unnoticed",
            change: [
                .text("keep "), .yaml("team_id"), .text(", "), .yaml("key_id"), .text(" and "),
                .yaml("private_key_file"), .text(" set; rotate the key by changing "), .yaml("key_id"),
                .text(" and "), .yaml("private_key_file"),
            ])
    }

    /// Tokens are stored but the configuration does not ask for a refresh token the way the plugin declares
    /// (`refreshTokenRequest`): a missing scope (X's `offline.access`) or
    /// authorization parameter (Google's `access_type=offline`).
    func refreshToken() -> Advisory? {
        guard storesTokens else { return nil }
        let display = provider.plugin.displayName
        switch provider.plugin.refreshTokenRequest {
        case .none:
            return nil
        case .authorizationParameter(let name, let value):
            guard provider.settings.authorizationParameters[name] != value else { return nil }
            return Advisory(
                provider: provider.name, code: .noRefreshToken, severity: .note,
                finding:
                    "no \(name)=\(value) — \(display) issues no refresh token, so stored tokens lapse with the "
                    + "access token",
                change: [.text("add "), .yaml("authorization_params: { \(name): \(value) }")])
        case .scope(let scope):
            guard !provider.scopes.contains(scope) else { return nil }
            return Advisory(
                provider: provider.name, code: .noRefreshToken, severity: .note,
                finding:
                    "no \(scope) scope — \(display) issues no refresh token, so stored tokens lapse with the access "
                    + "token",
                change: [.text("add "), .yaml(scope), .text(" to "), .yaml("scopes")])
        }
    }
}
