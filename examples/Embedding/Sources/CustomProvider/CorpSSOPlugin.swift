import AuthFlowDeployment

/// The company's own single sign-on, a plain OAuth 2.0 server: `type: corp` in providers.yaml.
///
/// A description (type, name, endpoints, scopes), the capabilities and the token endpoint are written out,
/// plus an identity strategy for its profile JSON, which uses its own member names (`employee_id`,
/// `display_name`, `mail`) instead of OpenID Connect's.
struct CorpSSOPlugin: ProviderPlugin {
    var about: ProviderDescription {
        ProviderDescription(
            type: "corp", displayName: "Corp SSO",
            endpoints: ProviderEndpoints(
                authorization: "https://sso.corp.example/authorize", token: "https://sso.corp.example/token",
                userinfo: "https://sso.corp.example/me"),
            scopes: ["profile"])
    }

    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        capability == .pkce ? .required : .unsupported(reason: "Corp SSO is plain OAuth 2.0")
    }

    var tokenEndpoint: any TokenEndpointStrategy { StandardTokenEndpoint(.clientSecretBasic) }

    var identity: any IdentityStrategy { CorpProfile() }
}

/// `{"employee_id": "e-1234", "display_name": "Ada", "mail": "ada@corp.example"}`; company addresses are
/// verified by the company itself.
struct CorpProfile: IdentityStrategy {
    func identity(fromUserinfo responses: [JSONValue], provider: ResolvedProvider) throws(SignInError)
        -> VerifiedIdentity
    {
        guard let object = responses.first?.objectValue, let employee = object["employee_id"]?.stringValue,
            !employee.isEmpty
        else {
            throw SignInError(
                "userinfo_error", "expected a JSON object with a non-empty 'employee_id', found none",
                provider: provider.name, claim: "employee_id")
        }
        let mail = object["mail"]?.stringValue
        return VerifiedIdentity(
            provider: provider.name, subject: employee, email: mail,
            emailVerified: mail?.hasSuffix("@corp.example") ?? false, name: object["display_name"]?.stringValue,
            source: .userinfo, rawClaims: object)
    }
}
