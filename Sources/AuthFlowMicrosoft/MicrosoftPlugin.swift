public import AuthFlow
import AuthFlowJOSE

/// Microsoft Entra ID (the Microsoft identity platform, v2.0 endpoints): OpenID Connect with a tenant.
///
/// Facts (docs/providers.md, "Microsoft"; Microsoft's documentation):
/// - `tenant` decides who signs in: `common` (work/school and personal accounts), `organizations`
///   (work/school), `consumers` (personal; tenant id `9188040d-6c67-4c5b-b112-36a304b66dad`) or one tenant's
///   id. Every endpoint carries it: `{base}/{tenant}/oauth2/v2.0/authorize`, `…/token`, and the keys at
///   `{base}/{tenant}/discovery/v2.0/keys`; `base_url` defaults to `https://login.microsoftonline.com`.
/// - The issuer of `common` and `organizations` is the template `{base}/{tenantid}/v2.0`: `iss` must equal it
///   with `{tenantid}` filled with the token's own `tid`, a GUID; a token whose `iss` names another
///   tenant than its `tid` is refused. Then the tenant must be in `allowed_tenants` (required for those two
///   tenants unless `allow_any_tenant: true`).
/// - `sub` is pairwise per application; `oid` is the user's id within a tenant, so the subject is
///   `{tid}:{oid}` (Microsoft: multi-tenant apps "should index on … `tid` + `oid`").
/// - `email` is mutable and not verified (the nOAuth account takeover): it is verified, and linkable,
///   only when Microsoft says so with the optional claim `xms_edov` (`true`, `"1"` or `"true"`) or lists it
///   in `verified_primary_email`.
/// - `groups` (object ids) become `VerifiedIdentity.groups` and `roles` (app roles) `VerifiedIdentity.roles`,
///   never mixed; past 200 groups Microsoft sends none (`_claim_names.groups`). The `tid` is the
///   identity's `tenant`, which access rules written `PROVIDER/TENANT:NAME` compare.
/// - Client authentication (`client_auth`): `client_secret_post` (the default), `client_secret_basic`, or
///   `private_key_jwt` with a certificate credential: the key in `private_key_file`, `key_id` the certificate's
///   thumbprint in hex, sent as `x5t` (SHA-1) or `x5t#S256` (SHA-256) in the assertion's header. PKCE is
///   supported though discovery does not list it; a refresh token needs the `offline_access` scope.
public struct MicrosoftPlugin: ProviderPlugin, PreparedPlugin, AdvisingPlugin {
    /// Microsoft's sign-in host.
    package static let defaultBaseURL = "https://login.microsoftonline.com"
    /// The tenant id of personal Microsoft accounts.
    package static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"
    /// The placeholder of the multi-tenant issuer.
    package static let tenantPlaceholder = "{tenantid}"
    /// The tenants that admit users of many organizations, where `allowed_tenants` is required.
    package static let multiTenant: Set<String> = ["common", "organizations"]

    /// `tenant`: `common`, `organizations`, `consumers` or a tenant id (GUID).
    package let tenant: String
    /// `base_url` without a trailing `/`.
    package let baseURL: String
    /// `allowed_tenants`, lowercased; `nil` when not set.
    package let allowedTenants: Set<String>?
    /// `allow_any_tenant`.
    package let allowAnyTenant: Bool

    /// Creates the plugin for `tenant` (default `common`) at `baseURL` (default
    /// `https://login.microsoftonline.com`); `providers.yaml`'s `tenant`, `base_url`, `allowed_tenants` and
    /// `allow_any_tenant` set them per provider.
    public init(
        tenant: String = "common", baseURL: String = "https://login.microsoftonline.com",
        allowedTenants: [String]? = nil,
        allowAnyTenant: Bool = false
    ) {
        self.tenant = tenant
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        self.baseURL = String(base)
        self.allowedTenants = allowedTenants.map { Set($0.map { $0.lowercased() }) }
        self.allowAnyTenant = allowAnyTenant
    }

    /// The tenant's authorize, token and keys endpoints under the base URL (userinfo at Microsoft Graph); the
    /// issuer `{base}/{tenantid}/v2.0` for `common` and `organizations` (an issuer with `{tenantid}` is filled
    /// with the token's `tid`), else the tenant's own; `profile` (for `oid`) and `email`; the `offline_access`
    /// scope for a refresh token; an email is linkable when Microsoft states it verified (`xms_edov`,
    /// `verified_primary_email`), never by `email` alone.
    public var about: ProviderDescription {
        let root = "\(baseURL)/\(tenant)"
        var description = ProviderDescription(
            type: "microsoft", displayName: "Microsoft",
            endpoints: ProviderEndpoints(
                authorization: "\(root)/oauth2/v2.0/authorize", token: "\(root)/oauth2/v2.0/token",
                userinfo: baseURL == Self.defaultBaseURL ? "https://graph.microsoft.com/oidc/userinfo" : nil,
                jwks: "\(root)/discovery/v2.0/keys"),
            issuer: issuerForTenant, scopes: ["profile", "email"],
            emailLinkability: .whenVerified(by: "xms_edov or verified_primary_email"),
            refreshTokenRequest: .scope("offline_access"))
        description.issuerPlaceholder = (Self.tenantPlaceholder, "tid")
        description.certificateThumbprintKeyID = true
        return description
    }

    private var issuerForTenant: String {
        if Self.multiTenant.contains(tenant) { return "\(baseURL)/\(Self.tenantPlaceholder)/v2.0" }
        if tenant == "consumers" { return "\(baseURL)/\(Self.consumersTenantID)/v2.0" }
        return "\(baseURL)/\(tenant.lowercased())/v2.0"
    }

    /// The `{tid}:{oid}` mapping and the tenant checks (`MicrosoftIdentity`).
    public var identity: any IdentityStrategy { MicrosoftIdentity(plugin: self) }

    /// `client_secret_post` unless `client_auth` picks `client_secret_basic` or `private_key_jwt` (a certificate
    /// credential).
    public var tokenEndpoint: any TokenEndpointStrategy {
        StandardTokenEndpoint(
            .clientSecretPost,
            choice: ClientAuthenticationChoice(
                allowed: [.clientSecretPost, .clientSecretBasic, .privateKeyJWT], defaultMethod: .clientSecretPost))
    }

    /// Reads the provider's tenant options and states the form of a tenant (`MicrosoftPreparation`).
    package var preparation: any ProviderPreparing { MicrosoftPreparation() }

    /// oidc required; pkce optional (on); form_post optional (off); jwt_client_auth unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .oidc:
            .required
        case .pkce:
            .optional(default: true)
        case .formPost:
            .optional(default: false)
        case .jwtClientAuth:
            .unsupported(
                reason: "Entra takes no client-secret JWT; its certificate assertions are chosen with client_auth: "
                    + "private_key_jwt")
        }
    }

    /// The tenants whose tokens are accepted; `nil` accepts any.
    package var acceptedTenants: Set<String>? {
        if Self.multiTenant.contains(tenant) { return allowAnyTenant ? nil : (allowedTenants ?? []) }
        if tenant == "consumers" { return [Self.consumersTenantID] }
        return [tenant.lowercased()]
    }

    /// With `allow_any_tenant: true`: every organization's users can sign in, and anyone can create one.
    package func advice(for provider: ResolvedProvider) -> [ProviderAdvice] {
        guard Self.multiTenant.contains(tenant), allowAnyTenant else { return [] }
        return [
            ProviderAdvice(
                code: "any_tenant",
                finding:
                    "every Entra tenant's users can sign in (allow_any_tenant: true), and anyone can create a tenant",
                key: "allowed_tenants", change: "to the tenant ids that may sign in", hardening: true)
        ]
    }

    /// `tenant` is one of the four forms; `common` and `organizations` need `allowed_tenants` (tenant ids) or
    /// `allow_any_tenant: true`, and not both; a single tenant takes neither.
    public func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] {
        let subject = "provider '\(settings.name)' (type microsoft)"
        var issues: [ConfigurationIssue] = []
        let named = ["common", "organizations", "consumers"]
        guard named.contains(tenant) || IssuerTemplate.isGUID(tenant) else {
            return [
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject): expected tenant to be common, organizations, consumers or a tenant id (a GUID), "
                        + "found '\(tenant.prefix(64))' (use the tenant id, not a domain name)",
                    settings.location(of: "tenant"))
            ]
        }
        var reading = settings.options.reading()
        let allowedTenants = reading.strings("allowed_tenants")
        if Self.multiTenant.contains(tenant) {
            if allowAnyTenant, allowedTenants != nil {
                issues.append(
                    ResolutionIssue.make(
                        .invalidValue,
                        "\(subject): use either allowed_tenants or allow_any_tenant: true, not both",
                        settings.location(of: "allow_any_tenant")))
            } else if !allowAnyTenant, (allowedTenants ?? []).isEmpty {
                issues.append(
                    ResolutionIssue.make(
                        .missingRequiredKey,
                        "\(subject) with tenant \(tenant) requires allowed_tenants (the tenant ids that may sign in) "
                            + "or allow_any_tenant: true (every organization)",
                        settings.location(of: allowedTenants == nil ? "tenant" : "allowed_tenants")))
            }
        } else {
            for key in ["allowed_tenants", "allow_any_tenant"] where settings.keyLocations[key] != nil {
                issues.append(
                    ResolutionIssue.make(
                        .invalidValue,
                        "\(subject): \(key) applies to tenant common or organizations only; tenant \(tenant) admits "
                            + "its own users", settings.location(of: key)))
            }
        }
        issues += validateCertificateCredential(settings, subject: subject)
        for entry in allowedTenants ?? [] where !IssuerTemplate.isGUID(entry) {
            issues.append(
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject): expected each entry of allowed_tenants to be a tenant id (a GUID), found "
                        + "'\(entry.prefix(64))'", settings.location(of: "allowed_tenants")))
        }
        return issues
    }

    /// Whether Microsoft states `email` is verified: `xms_edov` true (a boolean, `"1"` or `"true"`), or the
    /// address listed in `verified_primary_email`.
    static func isVerified(_ email: String, claims: [String: JSONValue]) -> Bool {
        switch claims["xms_edov"] {
        case .bool(true)?, .string("1")?, .string("true")?: return true
        default: break
        }
        let listed =
            claims["verified_primary_email"].map { value in
                value.stringValue.map { [$0] } ?? strings(value)
            } ?? []
        return listed.contains { $0.lowercased() == email.lowercased() }
    }

    /// The strings of a JSON array (other members skipped); empty for anything else.
    static func strings(_ value: JSONValue?) -> [String] {
        guard case .array(let items)? = value else { return [] }
        return items.compactMap(\.stringValue)
    }
}

extension MicrosoftPlugin {
    /// With `client_auth: private_key_jwt`, `key_id` is required and must be the certificate's thumbprint: 40 hex
    /// digits (SHA-1, sent as `x5t`) or 64 (SHA-256, `x5t#S256`), `:` or spaces between pairs allowed.
    func validateCertificateCredential(_ settings: ProviderSettings, subject: String) -> [ConfigurationIssue] {
        guard settings.clientAuthentication == .privateKeyJWT else { return [] }
        guard let keyID = settings.keyID else {
            // Written but without a value (`${VAR}` unset where credentials may be absent): nothing to check yet.
            if settings.keyLocations["key_id"] != nil { return [] }
            return [
                ResolutionIssue.make(
                    .missingRequiredKey,
                    "\(subject) with client_auth private_key_jwt requires key_id: the thumbprint of the certificate "
                        + "registered in Entra for the key (openssl x509 -noout -fingerprint -sha256)",
                    settings.location(of: "client_auth"))
            ]
        }
        let digits = keyID.filter { $0 != ":" && $0 != " " }
        guard digits.count == 40 || digits.count == 64, digits.allSatisfy(\.isHexDigit) else {
            return [
                ResolutionIssue.make(
                    .invalidValue,
                    "\(subject): expected key_id to be the certificate's thumbprint, 40 hex digits (SHA-1, sent as "
                        + "x5t) or 64 (SHA-256, sent as x5t#S256), found \(digits.count) characters"
                        + (digits.allSatisfy(\.isHexDigit) ? "" : " that are not all hex digits"),
                    settings.location(of: "key_id"))
            ]
        }
        return []
    }
}

/// Microsoft's identity: `{tid}:{oid}`, the tenant checked against the plugin's tenant and allow-list.
struct MicrosoftIdentity: IdentityStrategy {
    /// The plugin whose tenant and `allowed_tenants` apply.
    let plugin: MicrosoftPlugin

    /// `{tid}:{oid}` as subject, after checking `tid` is a GUID, allowed, and the one `iss` names; the
    /// email verified (and linkable) only with `xms_edov` or `verified_primary_email`; `groups` and `roles`.
    ///
    /// - Throws: `SignInError` `id_token_invalid` (claim `tid` or `oid`) or `tenant_not_allowed`.
    func identity(fromIDToken claims: JWTClaims, provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        guard let tid = claims.string("tid"), IssuerTemplate.isGUID(tid) else {
            throw SignInError(
                .idTokenInvalid,
                "expected a tenant id (a GUID) in the id_token's 'tid' claim, found none or another value",
                provider: provider.name, joseCode: .invalidClaim, claim: "tid")
        }
        let tenantID = tid.lowercased()
        // The verifier already matched `iss` (exactly, or the template filled with `tid`); this holds for a
        // tenant-specific issuer too, so `tid` is always the tenant that issued the token.
        guard claims.issuer.map({ $0.lowercased().contains("/\(tenantID)/") }) == true else {
            throw SignInError(
                .idTokenInvalid, "expected the id_token's 'iss' to name the tenant in its 'tid', found another tenant",
                provider: provider.name, joseCode: .issuerMismatch, claim: "iss")
        }
        if let accepted = plugin.acceptedTenants, !accepted.contains(tenantID) {
            throw SignInError(
                .tenantNotAllowed,
                "expected a tenant among allowed_tenants, found tenant \(tenantID) (add it to allowed_tenants to "
                    + "admit its users)", provider: provider.name, claim: "tid")
        }
        guard let oid = claims.string("oid"), !oid.isEmpty else {
            throw SignInError(
                .idTokenInvalid,
                "expected an 'oid' claim in the id_token (requested with the profile scope), found none",
                provider: provider.name, joseCode: .missingClaim, claim: "oid")
        }
        let raw = claims.json
        let email = claims.string("email")
        let verified = email.map { MicrosoftPlugin.isVerified($0, claims: raw) } ?? false
        return VerifiedIdentity(
            provider: provider.name, subject: "\(tenantID):\(oid)", email: email, emailVerified: verified,
            name: IdentityClaims.displayName(raw), source: .idToken, rawClaims: raw,
            groups: MicrosoftPlugin.strings(raw["groups"]), roles: MicrosoftPlugin.strings(raw["roles"]),
            tenant: tenantID, emailLinkable: verified)
    }
}

/// The options Microsoft reads (`tenant`, `allowed_tenants`, `allow_any_tenant`, `base_url`) and the form of its
/// tenants.
struct MicrosoftPreparation: ProviderPreparing {
    /// `tenant`, `allowed_tenants`, `allow_any_tenant` and `base_url`.
    var optionKeys: Set<String> { ["tenant", "allowed_tenants", "allow_any_tenant", "base_url"] }

    /// The plugin with the provider's tenant, base URL and tenant allow-list.
    ///
    /// - Throws: ``ConfigurationError`` for an option of the wrong type, a tenant with `/` or spaces, or a base
    ///   URL that is no `https://` URL without query.
    func configured(with options: ProviderOptions) throws(ConfigurationError) -> any ProviderPlugin {
        var reading = options.reading()
        var tenant = reading.string("tenant")
        if let written = tenant, written.contains(where: { $0 == "/" || $0 == " " }) {
            reading.refuse(
                "tenant",
                "expected a tenant name or id without '/' or spaces in \(reading.path("tenant")), found "
                    + ProviderOptions.Reading.quote(written))
            tenant = nil
        }
        let allowedTenants = reading.strings("allowed_tenants")
        let allowAnyTenant = reading.bool("allow_any_tenant")
        let baseURL = reading.url("base_url", allowsQuery: false)
        try reading.check()
        return MicrosoftPlugin(
            tenant: tenant ?? "common", baseURL: baseURL ?? MicrosoftPlugin.defaultBaseURL,
            allowedTenants: allowedTenants, allowAnyTenant: allowAnyTenant ?? false)
    }

    /// No set-up beyond the options.
    func prepared(for settings: ProviderSettings, context: ProviderPreparation) async throws(ConfigurationError)
        -> any ProviderPlugin
    {
        try configured(with: settings.options)
    }

    /// `a tenant id (a GUID, the id_token's tid)`: what an access rule's tenant is compared with.
    var tenantForm: String? { "a tenant id (a GUID, as in the id_token's tid)" }

    /// Whether `text` is a GUID, the only form of `tid` (a domain name such as `contoso.onmicrosoft.com` never is).
    func isTenant(_ text: String) -> Bool { IssuerTemplate.isGUID(text) }
}
