public import AuthFlow
public import AuthFlowJOSE
public import Foundation

/// Sign in with Apple: OpenID Connect with an ES256 client-secret JWT and a form-posted callback.
///
/// Facts (PROVIDERS.md §1): issuer `https://appleid.apple.com`; RS256 id_tokens from `/auth/keys`;
/// `client_secret_post` only, the secret being a JWT signed with the team's `.p8` key (minted fresh for
/// each request); `response_mode=form_post` is mandatory when the `name` or `email` scope is requested;
/// PKCE is undocumented; no userinfo endpoint. The nonce is mandatory when the token says
/// `nonce_supported`; `email_verified`, `is_private_email` and `nonce_supported` arrive as `true` or
/// `"true"`. The first-login `user` form field is unsigned: its name is handed out as an
/// `UnverifiedProfile`, its email is ignored.
public struct ApplePlugin: ProviderPlugin {
    /// Apple's id_token issuer.
    public static let issuer = "https://appleid.apple.com"
    /// The largest `user` form field read (bytes); larger ones are ignored.
    public static let maximumUserFieldBytes = 8 * 1024

    /// Creates the plugin.
    public init() {}

    /// `"apple"`.
    public var type: String { "apple" }

    /// `"Apple"`.
    public var displayName: String { "Apple" }

    /// oidc and jwt_client_auth required; form_post required when `name` or `email` is requested
    /// (optional, on, otherwise); pkce unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .oidc, .jwtClientAuth:
            .required
        case .pkce:
            .unsupported(reason: "Apple's REST API documents no code_challenge parameter")
        case .formPost:
            Self.requestsNameOrEmail(settings.scopes ?? Self.scopes) ? .required : .optional(default: true)
        }
    }

    static let scopes = ["name", "email"]

    static func requestsNameOrEmail(_ scopes: [String]) -> Bool {
        scopes.contains { $0 == "name" || $0 == "email" }
    }

    /// Apple's authorize, token, keys and revoke endpoints (Apple has no userinfo endpoint).
    public var defaultEndpoints: ProviderEndpoints {
        ProviderEndpoints(
            authorization: "https://appleid.apple.com/auth/authorize", token: "https://appleid.apple.com/auth/token",
            userinfo: nil, jwks: "https://appleid.apple.com/auth/keys",
            revocation: "https://appleid.apple.com/auth/revoke")
    }

    /// `https://appleid.apple.com`.
    public var defaultIssuer: String? { Self.issuer }

    /// `name` and `email`.
    public func defaultScopes(capabilities: Set<Capability>) -> [String] { Self.scopes }

    /// RS256 only (ES256 is for the client secret Apple receives, not for the tokens it signs).
    public var idTokenAlgorithms: Set<JWSAlgorithm> { [.rs256] }

    /// Mandatory when the token says `nonce_supported`.
    public var noncePolicy: NoncePolicy { .requiredWhenNonceSupported }

    /// An ES256 JWT as `client_secret` in the POST body.
    public func clientAuthentication(capabilities: Set<Capability>) -> ClientAuthentication { .es256ClientSecretJWT }

    /// `team_id`, `key_id` and `private_key_file`.
    public func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey] {
        [.teamID, .keyID, .privateKey]
    }

    /// Checks that the private key is a PKCS#8 EC P-256 key (the `.p8` file Apple issues).
    public func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] {
        guard let pem = settings.privateKey?.value, !pem.isEmpty else { return [] }
        do throws(JOSEError) {
            let key = try JWK(pkcs8PEM: pem)
            guard key.keyType == "EC", key.defaultAlgorithm == .es256, key.isPrivate else {
                return [
                    ResolutionIssue.make(
                        .invalidValue,
                        "provider '\(settings.name)' (type apple): expected private_key_file to hold an EC P-256 "
                            + "private key (Sign in with Apple .p8), found a \(key.keyType) key",
                        settings.location(of: "private_key_file"))
                ]
            }
            return []
        } catch {
            return [
                ResolutionIssue.make(
                    .invalidValue,
                    "provider '\(settings.name)' (type apple): expected private_key_file to hold a PKCS#8 PEM "
                        + "private key (Sign in with Apple .p8), found one that does not parse (\(error.code))",
                    settings.location(of: "private_key_file"))
            ]
        }
    }

    /// Mints Apple's client secret: ES256 JWT with `iss` team ID, `sub` client ID, `aud` Apple, `kid` key ID.
    ///
    /// - Throws: `SignInError` with `client_authentication_failed` when settings are missing or the key
    ///   does not sign.
    public func clientSecretJWT(for provider: ResolvedProvider, now: Date, lifetime: Int64) throws(SignInError)
        -> String
    {
        let settings = provider.settings
        guard let teamID = settings.teamID, let keyID = settings.keyID, let pem = settings.privateKey?.value else {
            throw SignInError(
                .clientAuthenticationFailed, "expected team_id, key_id and private_key_file, found one missing",
                provider: provider.name)
        }
        do throws(JOSEError) {
            let key = try JWK(pkcs8PEM: pem, keyID: keyID)
            return try AppleClientSecret.make(
                teamID: teamID, keyID: keyID, clientID: provider.clientID, privateKey: key, issuedAt: now,
                lifetime: min(max(lifetime, 1), AppleClientSecret.maximumLifetime))
        } catch {
            throw SignInError(
                .clientAuthenticationFailed, "expected to sign Apple's client secret, found \(error.code)",
                provider: provider.name)
        }
    }

    /// `sub`, `email`, and `email_verified` as `true` or `"true"`; Apple's id_token carries no name.
    public func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        guard let subject = claims.subject, !subject.isEmpty else {
            throw SignInError(
                .idTokenInvalid, "expected a non-empty 'sub' claim in the id_token, found none",
                provider: provider.name, claim: "sub")
        }
        return VerifiedIdentity(
            provider: provider.name, subject: subject, email: claims.string("email"),
            emailVerified: IdentityClaims.flag(claims["email_verified"]) ?? false, name: nil, source: .idToken,
            rawClaims: claims.json)
    }

    /// The name from Apple's first-login `user` field (`{"name":{"firstName","lastName"},"email"}`); the
    /// email there is ignored. `nil` when absent, oversized or not that JSON shape.
    public func unverifiedProfile(from parameters: CallbackParameters, provider: ResolvedProvider)
        -> UnverifiedProfile?
    {
        guard parameters.count("user") == 1, let text = parameters.value("user"),
            text.utf8.count <= Self.maximumUserFieldBytes,
            let json = try? JSONValue.parse(Array(text.utf8)),
            let name = json["name"]?.objectValue
        else { return nil }
        let first = name["firstName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let last = name["lastName"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        guard first != nil || last != nil else { return nil }
        return UnverifiedProfile(provider: provider.name, firstName: first, lastName: last)
    }
}
