public import AuthFlow
import AuthFlowJOSE

/// A plain OAuth 2.0 provider configured from YAML alone (`type: oauth2`).
///
/// `endpoints.authorization`, `endpoints.token` and `endpoints.userinfo` are required (`endpoints.revocation`
/// optional), and so is `claims.subject`: the identity is read from the userinfo JSON through `claims:`
/// (`ClaimMapping`; a dotted path such as `data.id`, a numeric id taken as its decimal string). There is
/// no id_token, and a mapped `claims.email` is verified only when `claims.email_verified` names a claim or states
/// a policy (the top-level `email_verified` vouches for the top-level `email` only).
/// PKCE is optional and on by default (RFC 6749 §3.1 has servers ignore parameters they do not know); the
/// client authenticates with `client_secret_basic` (the method RFC 6749 §2.3.1 requires servers to support)
/// unless `client_auth` picks `client_secret_post` or `private_key_jwt`.
public struct OAuth2Plugin: ProviderPlugin {
    /// Creates the plugin.
    public init() {}

    /// No endpoints (every one comes from `endpoints:`); `claims:` maps the identity.
    public var about: ProviderDescription {
        var description = ProviderDescription(type: "oauth2", displayName: "OAuth 2.0", endpoints: ProviderEndpoints())
        description.supportsClaimMapping = true
        return description
    }

    /// The `claims:` mapping (`OAuth2Identity`).
    public var identity: any IdentityStrategy { OAuth2Identity() }

    /// Any of ours, `client_secret_basic` by default.
    public var tokenEndpoint: any TokenEndpointStrategy {
        StandardTokenEndpoint(.clientSecretBasic, choice: .advertised(nil, preferred: .clientSecretBasic))
    }

    /// pkce optional (on); oidc, jwt_client_auth and form_post unsupported.
    public func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        switch capability {
        case .pkce:
            .optional(default: true)
        case .oidc:
            .unsupported(reason: "type oauth2 is plain OAuth 2.0; use type oidc for an OpenID Connect issuer")
        case .jwtClientAuth:
            .unsupported(
                reason: "this capability is Apple's ES256 client secret; sign the client's own assertions with "
                    + "client_auth: private_key_jwt")
        case .formPost:
            .unsupported(reason: "type oauth2 takes the code from a GET callback")
        }
    }

    /// `claims.subject` is required: a plain OAuth 2.0 userinfo response has no standard subject member.
    public func validate(_ settings: ProviderSettings, capabilities: Set<Capability>) -> [ConfigurationIssue] {
        guard settings.claims?.subject == nil else { return [] }
        let written = settings.keyLocations["claims"] != nil
        return [
            ResolutionIssue.make(
                .missingRequiredKey,
                "provider '\(settings.name)' (type oauth2) requires claims.subject: where the user's stable id is in "
                    + "the userinfo response (e.g. id, or data.id)", settings.location(of: written ? "claims" : "type"))
        ]
    }
}

/// A plain OAuth 2.0 provider's identity: the userinfo JSON through `claims:`.
struct OAuth2Identity: IdentityStrategy {
    /// The userinfo JSON through `claims:`.
    ///
    /// - Throws: `SignInError` with `userinfo_error` for a body that is not a JSON object, `claim_mapping_failed`
    ///   naming the path for a missing or wrongly typed member.
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        try (provider.settings.claims ?? .standard).identity(fromUserinfo: responses, provider: provider.name)
    }
}
