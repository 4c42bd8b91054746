import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// A provider plugin whose four capabilities are all optional (off by default), so tests can drive
/// ``OAuthFlow`` through every combination. Registered from outside the built-ins, like an application's.
struct TestPlugin: ProviderPlugin, IdentityStrategy, ClientSecretMinting {
    let clientSecretKey: JWK
    var alsoUserinfo = false
    var algorithms: Set<JWSAlgorithm> = [.rs256]
    /// Extra authorization parameters the plugin itself adds (like a provider-specific default).
    var extraParameters: [(String, String)] = []

    /// The plugin's issuer; `nil` for a plain OAuth 2.0 provider that names none.
    var issuer: String? = TestIdentityProvider.issuer

    /// Like an issuer advertising `authorization_response_iss_parameter_supported`.
    var promisesIssuerParameter = false

    /// Like an issuer advertising `pushed_authorization_request_endpoint` (RFC 9126).
    var pushedAuthorizationEndpoint: String?
    /// Like an issuer setting `require_pushed_authorization_requests`.
    var demandsPushedAuthorization = false

    /// The `type:` the plugin answers to.
    var typeName = "test"
    /// The security profiles the plugin declares (``ProviderDescription/profiles``).
    var profiles: Set<ProviderProfile> = []
    /// Like a plugin that signs in without an OAuth client (passkeys): ``ProviderDescription/ownProtocol``.
    var ownProtocol: SignInProtocol?

    var about: ProviderDescription {
        var description = ProviderDescription(
            type: typeName,
            endpoints: ProviderEndpoints(
                authorization: "https://idp.test/authorize", token: "https://idp.test/token",
                userinfo: "https://idp.test/userinfo", jwks: "https://idp.test/jwks",
                revocation: "https://idp.test/revoke"),
            issuer: issuer, scopes: ["profile", "email"], idTokenAlgorithms: algorithms,
            authorizationParameters: extraParameters, fetchesUserinfoWithIDToken: alsoUserinfo)
        description.sendsIssuerInAuthorizationResponse = promisesIssuerParameter
        description.endpoints.pushedAuthorizationRequest = pushedAuthorizationEndpoint
        description.requiresPushedAuthorizationRequests = demandsPushedAuthorization
        description.profiles = profiles
        description.ownProtocol = ownProtocol
        return description
    }

    func support(for capability: Capability, settings: ProviderSettings) -> CapabilitySupport {
        .optional(default: false)
    }

    var identity: any IdentityStrategy { self }

    var tokenEndpoint: any TokenEndpointStrategy { self }

    func method(capabilities: Set<Capability>) -> ClientAuthentication {
        capabilities.contains(.jwtClientAuth) ? .es256ClientSecretJWT : .clientSecretPost
    }

    /// Like Apple's `user` field: an unsigned display name sent with the callback.
    func unverifiedProfile(from parameters: CallbackParameters, provider: ResolvedProvider) -> UnverifiedProfile? {
        parameters.value("user_name").map { UnverifiedProfile(provider: provider.name, firstName: $0, lastName: nil) }
    }

    func clientSecretJWT(for provider: ResolvedProvider, now: Date, lifetime: Int64) throws(SignInError) -> String {
        do throws(JOSEError) {
            return try AppleClientSecret.make(
                teamID: "TEAMID1234", keyID: "CSKEY", clientID: provider.clientID, privateKey: clientSecretKey,
                issuedAt: now, lifetime: lifetime)
        } catch {
            throw SignInError(.clientAuthenticationFailed, "could not sign: \(error.code)")
        }
    }
}

/// Builders for settings and resolved providers in tests.
enum TestProviders {
    static let location = SourceLocation(fileName: "providers.yaml", line: 7, column: 3, sourceLine: "  test:")
    static let clientID = "client-123"
    static let clientSecret = "s3cret-value"
    static let publicURL = "https://app.test"

    static let clientSecretKey: JWK = {
        do { return try JWK.generateP256(keyID: "CSKEY") } catch { fatalError("test key generation failed: \(error)") }
    }()

    static func settings(
        name: String = "test", type: String = "test", capabilities: [String: Bool] = [:],
        clientSecret: String? = TestProviders.clientSecret, audiences: [String] = [], scopes: [String]? = nil
    ) -> ProviderSettings {
        ProviderSettings(
            name: name, type: type, clientID: clientID, clientSecret: clientSecret.map(Secret.init),
            audiences: audiences, scopes: scopes, capabilities: capabilities, location: location)
    }

    static func capabilities(mask: Int) -> [String: Bool] {
        var result: [String: Bool] = [:]
        for (index, capability) in Capability.allCases.enumerated() {
            result[capability.rawValue] = mask & (1 << index) != 0
        }
        return result
    }

    static func resolve(
        _ capabilities: [String: Bool] = [:], name: String = "test", alsoUserinfo: Bool = false,
        audiences: [String] = [], clientSecret: String? = TestProviders.clientSecret
    ) throws -> ResolvedProvider {
        let registry = ProviderRegistry([TestPlugin(clientSecretKey: clientSecretKey, alsoUserinfo: alsoUserinfo)])
        return try registry.resolve(
            settings(
                name: name, capabilities: capabilities, clientSecret: clientSecret, audiences: audiences),
            publicURL: publicURL)
    }
}
