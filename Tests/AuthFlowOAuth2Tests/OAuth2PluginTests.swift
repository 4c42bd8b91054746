import AuthFlow
import AuthFlowDeployment
import AuthFlowJOSE
import AuthFlowProviders
import Foundation
import Testing

/// `type: oauth2`: a plain OAuth 2.0 provider from YAML alone.
@Suite struct OAuth2PluginTests {
    static func load(_ provider: String) throws -> Configuration {
        let yaml = """
            server:
              public_url: https://app.example
              secret: 0123456789abcdef0123456789abcdef
            providers:
              corp:
                type: oauth2
                client_id: app
                client_secret: s3cret
            \(provider)
            """
        return try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
    }

    static let complete = """
            endpoints:
              authorization: https://sso.corp.example/authorize
              token: https://sso.corp.example/token
              userinfo: https://sso.corp.example/api/me
              revocation: https://sso.corp.example/revoke
            claims: {subject: data.id, email: data.email, email_verified: true}
            scopes: [profile]
        """

    @Test func resolvesFromYAMLAlone() throws {
        let corp = try #require(try ProviderRegistry.standard.resolve(Self.load(Self.complete)).first)
        #expect(corp.plugin is OAuth2Plugin)
        #expect(corp.capabilities == [.pkce])
        #expect(corp.signInProtocol == .oauth2)
        #expect(corp.identitySource == .userinfo)
        #expect(corp.clientAuthentication == .clientSecretBasic)
        #expect(corp.endpoints.revocation == "https://sso.corp.example/revoke")
        #expect(corp.scopes == ["profile"])
        let identity = try corp.plugin.identity.identity(
            fromUserinfo: [["data": ["id": 42, "email": "a@corp.example"]]], provider: corp)
        #expect(identity.subject == "42")
        #expect(identity.emailVerified)
        #expect(identity.source == .userinfo)
    }

    @Test func takesAnyClientAuthAndPKCEOff() throws {
        let configuration = try Self.load(
            Self.complete + "\n    client_auth: client_secret_post\n    capabilities: {pkce: false}")
        let corp = try #require(try ProviderRegistry.standard.resolve(configuration).first)
        #expect(corp.clientAuthentication == .clientSecretPost)
        #expect(corp.capabilities == [])
    }

    @Test func missingEndpointsAndSubjectAreErrorsWithPositions() throws {
        let configuration = try Self.load("    endpoints: {authorization: https://sso.corp.example/a}")
        do throws(ConfigurationError) {
            _ = try ProviderRegistry.standard.resolve(configuration)
            Issue.record("expected issues")
        } catch {
            #expect(
                error.issues.map(\.code.rawValue) == [
                    "missing_endpoint", "missing_endpoint", "missing_required_key",
                ])
            #expect(error.issues.map(\.message).joined().contains("set endpoints.token"))
            #expect(error.issues.map(\.message).joined().contains("set endpoints.userinfo"))
            #expect(error.issues.last?.message.contains("requires claims.subject") == true)
            #expect(error.issues.map { $0.location?.line } == [5, 5, 6])
        }
    }

    @Test func refusesOIDCAndClaimsOnAPluginThatReadsItsOwnWay() throws {
        let oidc = try Self.load(Self.complete + "\n    capabilities: {oidc: true}")
        #expect(throws: ConfigurationError.self) { _ = try ProviderRegistry.standard.resolve(oidc) }
        let yaml = """
            server:
              public_url: https://app.example
              secret: 0123456789abcdef0123456789abcdef
            providers:
              x:
                client_id: app
                client_secret: s
                claims: {subject: id}
            """
        let x = try ConfigurationLoader(environment: [:]).load(yaml: yaml, fileName: "providers.yaml")
        do throws(ConfigurationError) {
            _ = try ProviderRegistry.standard.resolve(x)
            Issue.record("expected invalid_value")
        } catch {
            #expect(error.issues.map(\.code.rawValue) == ["invalid_value"])
            #expect(error.issues.first?.location?.line == 8)
            #expect(error.issues.first?.message.contains("cannot take claims") == true)
        }
        let apple = try ConfigurationLoader(environment: [:]).load(
            yaml: yaml.replacingOccurrences(
                of: "    claims: {subject: id}", with: "    client_auth: client_secret_post"),
            fileName: "providers.yaml")
        do throws(ConfigurationError) {
            _ = try ProviderRegistry.standard.resolve(apple)
            Issue.record("expected unsupported_client_authentication")
        } catch {
            #expect(error.issues.first?.message.contains("X allows only: client_secret_basic") == true)
        }
    }

    @Test func aMappedPathMissingFromUserinfoIsATypedError() throws {
        let corp = try #require(try ProviderRegistry.standard.resolve(Self.load(Self.complete)).first)
        do throws(SignInError) {
            _ = try corp.plugin.identity.identity(fromUserinfo: [["id": 42]], provider: corp)
            Issue.record("expected claim_mapping_failed")
        } catch {
            #expect(error.code == .claimMappingFailed)
            #expect(error.claim == "data.id")
        }
    }
}
