import AuthFlow
import AuthFlowDeployment
import Testing

/// `client_auth` and `claims` in providers.yaml, with positions.
@Suite struct ClientAuthConfigurationTests {
    static let head = """
        providers:
          corp:
            type: oidc
            issuer: https://id.corp.example
            client_id: abc
            client_secret: s3cret

        """

    @Test func readsClientAuthAndClaims() throws {
        let yaml =
            Self.head + """
                    client_auth: client_secret_post
                    claims: {subject: data.id, email: mail, email_verified: true, name: profile.name, groups: roles}
                """
        let corp = try #require(try makeLoader().load(yaml: yaml, fileName: "providers.yaml").providers.first)
        #expect(corp.clientAuthentication == .clientSecretPost)
        let claims = try #require(corp.claims)
        #expect(claims.subject?.description == "data.id")
        #expect(claims.email?.description == "mail")
        #expect(claims.emailVerified == .always(true))
        #expect(claims.name?.description == "profile.name")
        #expect(claims.groups?.description == "roles")
        #expect(corp.keyLocations["claims.groups"]?.line == 8)
    }

    @Test func aQuotedEmailVerifiedIsAClaimName() throws {
        let yaml = Self.head + "    claims: {email_verified: \"true\"}\n"
        let corp = try #require(try makeLoader().load(yaml: yaml, fileName: "providers.yaml").providers.first)
        #expect(corp.claims?.emailVerified == .claim(ClaimMapping.Path("true")!))
    }

    @Test func refusesAnUnknownMethodAtItsPosition() throws {
        let error = try loadError(Self.head + "    client_auth: client_secret_jwt\n")
        #expect(error.issues.map(\.code) == [.invalidValue])
        #expect(
            error.description == """
                providers.yaml:7:18: expected one of client_secret_basic, client_secret_post, private_key_jwt for providers.corp.client_auth, found "client_secret_jwt"
                    client_auth: client_secret_jwt
                                 ^
                """)
    }

    @Test func refusesUnknownClaimKeysAndEmptyPathComponents() throws {
        let error = try loadError(Self.head + "    claims:\n      subjet: id\n      email: data..mail\n")
        #expect(error.issues.map(\.code) == [.unknownKey, .invalidValue])
        #expect(error.issues.first?.message.contains("subject") == true)
        #expect(error.issues.map { $0.location?.line } == [8, 9])
        #expect(error.issues.last?.message.contains("providers.corp.claims.email") == true)
    }
}
