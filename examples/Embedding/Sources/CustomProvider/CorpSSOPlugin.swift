import AuthFlowDeployment

/// The company's own single sign-on, a plain OAuth 2.0 server: `type: corp` in providers.yaml.
///
/// Only the four requirements without a default are written out, plus the mapping of its profile JSON,
/// which uses its own member names (`employee_id`, `display_name`, `mail`) instead of OpenID Connect's.
struct CorpSSOPlugin: ProviderPlugin {
    var type: String { "corp" }

    var displayName: String { "Corp SSO" }

    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        capability == .pkce ? .required : .unsupported(reason: "Corp SSO is plain OAuth 2.0")
    }

    var defaultEndpoints: ProviderEndpoints {
        ProviderEndpoints(
            authorization: "https://sso.corp.example/authorize", token: "https://sso.corp.example/token",
            userinfo: "https://sso.corp.example/me")
    }

    func clientAuthentication(capabilities: Set<Capability>) -> ClientAuthentication { .clientSecretBasic }

    func defaultScopes(capabilities: Set<Capability>) -> [String] { ["profile"] }

    /// `{"employee_id": "e-1234", "display_name": "Ada", "mail": "ada@corp.example"}`; company addresses are
    /// verified by the company itself.
    func identity(fromUserinfo json: JSONValue, provider: ResolvedProvider) throws(SignInError) -> VerifiedIdentity {
        guard let object = json.objectValue, let employee = object["employee_id"]?.stringValue, !employee.isEmpty
        else {
            throw SignInError(
                .userinfoError, "expected a JSON object with a non-empty 'employee_id', found none",
                provider: provider.name, claim: "employee_id")
        }
        let mail = object["mail"]?.stringValue
        return VerifiedIdentity(
            provider: provider.name, subject: employee, email: mail,
            emailVerified: mail?.hasSuffix("@corp.example") ?? false, name: object["display_name"]?.stringValue,
            source: .userinfo, rawClaims: object)
    }
}
