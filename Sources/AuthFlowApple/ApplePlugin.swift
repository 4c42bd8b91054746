public import AuthFlow
import AuthFlowJOSE
import Foundation

/// Sign in with Apple: OpenID Connect with an ES256 client-secret JWT and a form-posted callback.
///
/// Facts (docs/providers.md, "Apple"; Apple's documentation): issuer `https://appleid.apple.com`; RS256 id_tokens from
/// `/auth/keys`; `client_secret_post` only, the secret being a JWT signed with the team's `.p8` key (minted fresh for
/// each request); `response_mode=form_post` is mandatory when the `name` or `email` scope is requested; PKCE is
/// undocumented; no userinfo endpoint. AuthFlow always sends a nonce, so the id_token must carry it whatever its
/// `nonce_supported` says; `email_verified` and `is_private_email` arrive as `true` or `"true"`. The first-login `user`
/// form field is unsigned: its name is handed out as an `UnverifiedProfile`, its email is ignored; an unreadable one
/// refuses the sign-in.
public struct ApplePlugin: ProviderPlugin {
    /// Apple's id_token issuer.
    package static let issuer = "https://appleid.apple.com"
    /// The largest `user` form field read (bytes); a larger one refuses the sign-in (`invalid_user_field`).
    package static let maximumUserFieldBytes = 8 * 1024

    /// Creates the plugin.
    public init() {}

    /// Apple's authorize, token, keys and revoke endpoints (Apple has no userinfo endpoint), issuer, `name email`,
    /// RS256 only (ES256 is for the client secret Apple receives, not for the tokens it signs); a verified email
    /// that is not a private relay address is linkable (docs/providers.md, "Apple": a relay address is an alias
    /// made for this app alone, and it also arrives without `is_private_email`); the first-login name, sent
    /// once, is kept until the sign-in completes. Native sign-in: the identity token's `aud` is the app's bundle
    /// id, one of `native_clients`; the app's `authorizationCode` is exchanged with `client_id` = the bundle id
    /// (a Services ID there gives `invalid_client`), for the refresh token account deletion revokes.
    public var about: ProviderDescription {
        var description = ProviderDescription(
            type: "apple", displayName: "Apple",
            endpoints: ProviderEndpoints(
                authorization: "https://appleid.apple.com/auth/authorize",
                token: "https://appleid.apple.com/auth/token", userinfo: nil,
                jwks: "https://appleid.apple.com/auth/keys", revocation: "https://appleid.apple.com/auth/revoke"),
            issuer: Self.issuer, scopes: Self.scopes,
            emailLinkability: .whenVerified(by: "email_verified, and not a private relay address"))
        description.keepsUnverifiedProfile = true
        description.nativeSignIn = NativeSignInDescription(audience: .nativeClient, exchangesAuthorizationCode: true)
        return description
    }

    /// The id_token and `user` field mapping (`AppleIdentity`).
    public var identity: any IdentityStrategy { AppleIdentity() }

    /// The ES256 client-secret JWT (`AppleTokenEndpoint`).
    public var tokenEndpoint: any TokenEndpointStrategy { AppleTokenEndpoint() }

    /// Apple's server-to-server notifications (`AppleNotifications`).
    public var events: (any ProviderEventHandling)? { AppleNotifications() }

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

    /// The relay domain of Apple's "Hide My Email" addresses.
    package static let privateRelayDomain = "@privaterelay.appleid.com"
}

/// Sign in with Apple's token endpoint: the client secret is an ES256 JWT, minted for each request.
struct AppleTokenEndpoint: RequiredSettingsDeclaring, ClientSecretMinting {
    /// An ES256 JWT as `client_secret` in the POST body.
    func method(capabilities: Set<Capability>) -> ClientAuthentication { .es256ClientSecretJWT }

    /// `team_id`, `key_id` and `private_key_file`.
    func requiredSettings(capabilities: Set<Capability>) -> [ProviderSettingKey] {
        [.teamID, .keyID, .privateKey]
    }

    /// Mints Apple's client secret: ES256 JWT with `iss` team ID, `sub` client ID, `aud` Apple, `kid` key ID.
    ///
    /// - Throws: `SignInError` with `client_authentication_failed` when settings are missing or the key
    ///   does not sign.
    func clientSecretJWT(for provider: ResolvedProvider, now: Date, lifetime: Int64) throws(SignInError)
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
}

/// Sign in with Apple's identity: the id_token's claims and the first-login `user` field's name.
struct AppleIdentity: IdentityStrategy {
    /// `sub`, `email`, `email_verified` and `is_private_email` as `true` or `"true"`; Apple's id_token carries
    /// no name. A relay address (`is_private_email`, or the `privaterelay.appleid.com` domain, which Apple's
    /// tokens also use without the flag) is verified but never linkable: it proves nothing `sub` does not.
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        guard let subject = claims.subject, !subject.isEmpty else {
            throw SignInError(
                .idTokenInvalid, "expected a non-empty 'sub' claim in the id_token, found none",
                provider: provider.name, claim: "sub")
        }
        let email = claims.string("email")
        let relay =
            IdentityClaims.flag(claims["is_private_email"]) == true
            || email.map { $0.lowercased().hasSuffix(ApplePlugin.privateRelayDomain) } == true
        return VerifiedIdentity(
            provider: provider.name, subject: subject, email: email,
            emailVerified: IdentityClaims.flag(claims["email_verified"]) ?? false, name: nil, source: .idToken,
            rawClaims: claims.json, isPrivateRelayEmail: relay, emailLinkable: !relay)
    }

    /// The name from Apple's first-login `user` field (`{"name":{"firstName","lastName"},"email"}`); the
    /// email there is ignored. `nil` when the field is absent or carries no name.
    ///
    /// - Throws: `SignInError` with `invalid_user_field` when the field repeats, is larger than
    ///   8 KiB, held bytes that are not UTF-8 (the form decoder turns them into U+FFFD,
    ///   which Apple's JSON never carries unescaped), is not a JSON object, or has a `name` that is not an
    ///   object of strings. Refusing keeps a garbled name from ever reaching the store.
    func unverifiedProfile(from parameters: CallbackParameters, provider: ResolvedProvider)
        throws(SignInError) -> UnverifiedProfile?
    {
        let count = parameters.count("user")
        guard count > 0, let text = parameters.value("user") else { return nil }
        func refuse(_ found: String) -> SignInError {
            SignInError(
                .invalidUserField, "expected Apple's user field to be one UTF-8 JSON object, found \(found)",
                provider: provider.name)
        }
        guard count == 1 else { throw refuse("\(count) user fields") }
        guard text.utf8.count <= ApplePlugin.maximumUserFieldBytes else {
            throw refuse("more than \(ApplePlugin.maximumUserFieldBytes) bytes")
        }
        guard !text.unicodeScalars.contains("\u{FFFD}") else { throw refuse("bytes that are not UTF-8") }
        guard let json = try? JSONValue.parse(Array(text.utf8)), json.objectValue != nil else {
            throw refuse("text that is not a JSON object")
        }
        guard let nameValue = json["name"] else { return nil }
        guard let name = nameValue.objectValue else { throw refuse("a name that is not an object") }
        var parts: [String?] = []
        for key in ["firstName", "lastName"] {
            guard let value = name[key], value != .null else {
                parts.append(nil)
                continue
            }
            guard let string = value.stringValue else { throw refuse("a \(key) that is not a string") }
            parts.append(string.isEmpty ? nil : string)
        }
        guard parts[0] != nil || parts[1] != nil else { return nil }
        return UnverifiedProfile(provider: provider.name, firstName: parts[0], lastName: parts[1])
    }
}
