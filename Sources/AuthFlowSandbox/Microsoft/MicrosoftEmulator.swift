import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// The Microsoft Entra ID (identity platform v2.0) emulator, under `/microsoft/{tenant}/…` where `{tenant}` is
/// `common`, `organizations`, `consumers` or a tenant GUID of `SandboxConfiguration.microsoftTenants`:
/// `v2.0/.well-known/openid-configuration`, `oauth2/v2.0/authorize`, `oauth2/v2.0/token`,
/// `oauth2/v2.0/logout`, `discovery/v2.0/keys`, plus `/microsoft/oidc/userinfo`.
///
/// Facts (docs/providers.md, "Microsoft"): tenant issuers `…/{tid}/v2.0`, the `{tenantid}` template for the
/// multi-tenant authorities, `tid`/`oid` claims, email never vouched for unless `xms_edov`, JWKS keys without
/// `alg` but with a per-key `issuer`, PKCE `plain` and `S256` (not advertised), 10-minute codes, client
/// authentication by secret (Basic or body) or `private_key_jwt`, and RP-initiated logout.
struct MicrosoftEmulator: SandboxEmulator {
    static let multiTenantAuthorities: Set<String> = ["common", "organizations", "consumers"]

    static let profile = SandboxEmulatorProfile(
        provider: .microsoft, displayName: "Microsoft", authorizationCodeLifetime: 600, accessTokenLifetime: 3599,
        codePrefix: "0.AX", accessTokenPrefix: "EwB", refreshTokenPrefix: "0.AR",
        // The `common` authority's.
        paths: .init(
            authorization: "/common/oauth2/v2.0/authorize", token: "/common/oauth2/v2.0/token",
            userinfo: "/oidc/userinfo", jwks: "/common/discovery/v2.0/keys",
            discovery: "/common/v2.0/.well-known/openid-configuration", endSession: "/common/oauth2/v2.0/logout"),
        // The multi-tenant issuer template: `<root>/{tenantid}/v2.0`.
        issuerPath: "/{tenantid}/v2.0", keyIDStyle: .entra, presets: presets, consentFieldsHTML: consentFieldsHTML)
    var profile: SandboxEmulatorProfile { Self.profile }

    static var presets: [SandboxIdentity] {
        [
            SandboxIdentity(
                subject: "AAAAAAAAAAAAAAAAAAAAAGx1Y2lhLWNvbnRvc28tc3Vi", email: "alice@contoso.example",
                givenName: "Alice", familyName: "Contoso", tenantID: SandboxMicrosoftTenant.contoso.id,
                objectID: "5b3f0c6e-2d1a-4e8b-9f7c-1a2b3c4d5e01",
                groups: ["0e5d4c3b-2a19-4f8e-8d7c-6b5a49382710"], roles: ["Admin"]),
            SandboxIdentity(
                subject: "AAAAAAAAAAAAAAAAAAAAAGJvYi1mYWJyaWthbS1zdWI", email: "bob@fabrikam.example",
                givenName: "Bob", familyName: "Unverified", emailVerified: false,
                tenantID: SandboxMicrosoftTenant.fabrikam.id, objectID: "7c2e9a4b-6d3f-4b1a-8e5c-2f3a4b5c6d02"),
            SandboxIdentity(
                subject: "AAAAAAAAAAAAAAAAAAAAAGNhcm9sLXBlcnNvbmFsLXN1Yg", email: "carol@outlook.example",
                givenName: "Carol", familyName: "Personal", tenantID: SandboxMicrosoftTenant.personalAccounts.id,
                objectID: "00000000-0000-0000-a1b2-c3d4e5f60003"),
        ]
    }

    func route(_ request: HTTPServerRequest, path: String, sandbox: SandboxIdentityProvider) -> HTTPServerResponse {
        if path == "/consent" {
            return sandbox.only("POST", request) { sandbox.handleConsent(request, provider: .microsoft) }
        }
        if path == "/oidc/userinfo" {
            guard request.method == "GET" || request.method == "POST" else {
                return SandboxIdentityProvider.methodNotAllowed("GET, POST")
            }
            return sandbox.handleMicrosoftUserinfo(request)
        }
        // `/{tenant}/…`
        let trimmed = path.dropFirst()
        guard let slash = trimmed.firstIndex(of: "/") else { return SandboxIdentityProvider.notFound() }
        let segment = String(trimmed[..<slash])
        let rest = String(trimmed[slash...])
        let known: Set<String> = [
            "/v2.0/.well-known/openid-configuration", "/oauth2/v2.0/authorize", "/oauth2/v2.0/token",
            "/oauth2/v2.0/logout", "/discovery/v2.0/keys",
        ]
        guard known.contains(rest) else { return SandboxIdentityProvider.notFound() }
        guard let authority = sandbox.microsoftAuthority(segment) else {
            let failure = OAuthFailure(
                "invalid_tenant",
                "AADSTS90002: Tenant '\(clip(segment))' not found. Use a tenant GUID of this sandbox, common, "
                    + "organizations or consumers.")
            if rest == "/oauth2/v2.0/authorize" || rest == "/oauth2/v2.0/logout" {
                return SandboxPages.error(
                    provider: .microsoft, refusal: AuthorizationRefusal(failure.error, failure.description))
            }
            return sandbox.microsoftResponse(failure)
        }
        switch rest {
        case "/v2.0/.well-known/openid-configuration":
            return sandbox.only("GET", request) {
                sandbox.discovery(.microsoft) { sandbox.microsoftDiscovery(authority: authority) }
            }
        case "/oauth2/v2.0/authorize":
            return sandbox.only("GET", request) {
                sandbox.handleAuthorize(request, provider: .microsoft) {
                    sandbox.validateMicrosoftAuthorization($0, authority: authority)
                }
            }
        case "/oauth2/v2.0/token":
            return sandbox.only("POST", request) { sandbox.handleMicrosoftToken(request, authority: authority) }
        case "/oauth2/v2.0/logout":
            guard request.method == "GET" || request.method == "POST" else {
                return SandboxIdentityProvider.methodNotAllowed("GET, POST")
            }
            return sandbox.handleMicrosoftLogout(request, authority: authority)
        default:
            return sandbox.only("GET", request) { sandbox.microsoftJWKS(authority: authority) }
        }
    }

    /// An app registration with a generated secret and the default post-logout redirect URIs.
    func registerGeneratedClient(clientID: String, redirectURIs: [String], sandbox: SandboxIdentityProvider)
        throws(SandboxError) -> GeneratedClient
    {
        let secret = Base64URL.encode(sandbox.configuration.random.bytes(24))
        let client = SandboxClient.microsoft(clientID: clientID, clientSecret: secret, redirectURIs: redirectURIs)
        try sandbox.register(client)
        return GeneratedClient(client: client, secret: secret, privateKey: nil, teamID: nil)
    }

    /// The `common` authority, limited to the sandbox's tenants (`tenant`, `allowed_tenants`).
    func demoYAMLLines(_ client: SandboxDemoClient, sandbox: SandboxIdentityProvider) -> [String] {
        let tenants = sandbox.configuration.microsoftTenants.map(\.id).joined(separator: ", ")
        return (client.credentialFile.map { ["    client_secret_file: \"\($0)\""] } ?? []) + [
            "    tenant: common", "    allowed_tenants: [\(tenants)]", "    scopes: [openid, profile, email]",
        ]
    }

    static func endpoints(root: String, authority: String, issuer: String?) -> SandboxEndpoints {
        let base = root + "/" + authority
        return SandboxEndpoints(
            provider: .microsoft, issuer: issuer, authorization: base + "/oauth2/v2.0/authorize",
            token: base + "/oauth2/v2.0/token", userinfo: root + "/oidc/userinfo",
            jwks: base + "/discovery/v2.0/keys", revocation: nil,
            discovery: base + "/v2.0/.well-known/openid-configuration", endSession: base + "/oauth2/v2.0/logout")
    }

    func checkRegistration(_ client: SandboxClient, refuse: (String) -> SandboxError) throws(SandboxError)
        -> SandboxClient
    {
        if let secret = client.clientSecret, secret.isEmpty {
            throw refuse("expected a non-empty client secret, or none")
        }
        for key in client.assertionKeys where key.keyType != "EC" && key.keyType != "RSA" {
            throw refuse("expected EC or RSA public keys for private_key_jwt, found a \(key.keyType) key")
        }
        switch client.authMethod {
        case .clientSecretBasic?, .clientSecretPost?:
            guard client.clientSecret != nil else {
                throw refuse("a client registered for \(client.authMethod?.rawValue ?? "") needs a client secret")
            }
        case .privateKeyJWT?:
            guard !client.assertionKeys.isEmpty else {
                throw refuse("a client registered for private_key_jwt needs at least one public key")
            }
        case .none?:
            guard client.clientSecret == nil, client.assertionKeys.isEmpty else {
                throw refuse("a public client (auth method none) must have neither secret nor keys")
            }
        case nil:
            break
        }
        for uri in client.postLogoutRedirectURIs {
            guard let components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
                scheme == "http" || scheme == "https", components.host?.isEmpty == false, components.fragment == nil
            else {
                throw refuse(
                    "expected post-logout redirect URIs to be absolute http(s) URLs without a fragment, found '\(clip(uri))'"
                )
            }
        }
        return client
    }

    /// The tenant the code is issued for: the authority's own tenant (member or guest), the user's home tenant
    /// through `common`, only work accounts through `organizations`, only personal accounts through `consumers`.
    func approvedIdentity(
        _ identity: SandboxIdentity, for authorization: AuthorizationRequest, sandbox: SandboxIdentityProvider
    ) -> Result<SandboxIdentity, AuthorizationRefusal> {
        let personal = SandboxMicrosoftTenant.personalAccounts.id
        let home = identity.tenantID?.lowercased() ?? sandbox.configuration.microsoftTenants.first?.id ?? personal
        let tenant: String
        switch authorization.authority ?? "common" {
        case "common":
            tenant = home
        case "organizations":
            guard home != personal else {
                return .failure(
                    AuthorizationRefusal(
                        "access_denied",
                        "AADSTS50020: personal Microsoft accounts cannot sign in through the organizations authority"))
            }
            tenant = home
        case "consumers":
            guard home == personal else {
                return .failure(
                    AuthorizationRefusal(
                        "access_denied",
                        "AADSTS50020: work or school accounts cannot sign in through the consumers authority"))
            }
            tenant = personal
        case let specific:
            tenant = specific
        }
        var approved = identity
        approved.tenantID = tenant
        // The object id is per tenant: a guest has another one in the tenant that invited it.
        if tenant != home || identity.objectID == nil {
            approved.objectID = Self.derivedObjectID(subject: identity.subject, tenantID: tenant)
        }
        return .success(approved)
    }

    /// A stable GUID from a subject and a tenant (SHA-256, shaped as a version-4 GUID).
    static func derivedObjectID(subject: String, tenantID: String) -> String {
        var bytes = Array(Digest.sha256(Array((tenantID + "\u{0}" + subject).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let text = Hex.encode(bytes)
        let characters = Array(text)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// Typed identities: `tenant_id` (a known tenant GUID), `object_id` (a GUID), `groups` and `roles`
    /// (comma-separated), and the `issuer_tenant_id` test hook.
    func readConsentFields(_ form: Parameters, into identity: inout SandboxIdentity, sandbox: SandboxIdentityProvider)
        -> AuthorizationRefusal?
    {
        func refuse(_ text: String) -> AuthorizationRefusal { AuthorizationRefusal("invalid_request", text) }
        for (field, value) in [("tenant_id", form["tenant_id"]), ("issuer_tenant_id", form["issuer_tenant_id"])] {
            guard let value else { continue }
            guard sandbox.isKnownMicrosoftTenant(value.lowercased()) else {
                return refuse("\(field) must be the GUID of a tenant of this sandbox, found '\(clip(value))'")
            }
        }
        identity.tenantID = form["tenant_id"]?.lowercased()
        identity.issuerTenantID = form["issuer_tenant_id"]?.lowercased()
        identity.groupsOverage = form["groups_overage"] == "true"
        if let objectID = form["object_id"] {
            guard SandboxMicrosoftTenant.isGUID(objectID) else {
                return refuse("object_id must be a GUID, found '\(clip(objectID))'")
            }
            identity.objectID = objectID.lowercased()
        }
        for (field, keyPath) in [("groups", \SandboxIdentity.groups), ("roles", \SandboxIdentity.roles)] {
            guard let value = form[field] else { continue }
            let items = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            guard items.count <= 300, items.allSatisfy({ SandboxIdentityProvider.isPrintable($0, maximumBytes: 120) })
            else { return refuse("\(field) must be at most 300 comma-separated values of at most 120 bytes") }
            identity[keyPath: keyPath] = items
        }
        return nil
    }

    static var consentFieldsHTML: String {
        """
        <label>Tenant id <input type="text" name="tenant_id" maxlength="36" autocomplete="off"></label>
        <label>Object id (oid) <input type="text" name="object_id" maxlength="36" autocomplete="off"></label>
        <label>Groups (comma-separated) <input type="text" name="groups" autocomplete="off"></label>
        <label>App roles (comma-separated) <input type="text" name="roles" autocomplete="off"></label>
        <label><input type="checkbox" name="groups_overage" value="true"> Test hook: too many groups (overage)</label>
        <label>Test hook: issuer tenant id, to make iss differ from tid <input type="text" name="issuer_tenant_id" maxlength="36" autocomplete="off"></label>

        """
    }
}
