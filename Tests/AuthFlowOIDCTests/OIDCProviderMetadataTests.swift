import AuthFlow
import AuthFlowJOSE
import AuthFlowOIDC
import Testing

@Suite struct OIDCProviderMetadataTests {
    static let issuer = "https://login.example.com"

    func metadata(_ changes: [String: JSONValue]) throws(OIDCDiscoveryError) -> OIDCProviderMetadata {
        try OIDCProviderMetadata(json: TestIssuer.document(Self.issuer, changes), expectedIssuer: Self.issuer)
    }

    func refusal(_ changes: [String: JSONValue], expectedIssuer: String = issuer) -> OIDCDiscoveryError? {
        do {
            _ = try OIDCProviderMetadata(
                json: TestIssuer.document(Self.issuer, changes), expectedIssuer: expectedIssuer)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEndpointsAlgorithmsAndMethodsFromAGoogleLikeDocument() throws {
        let metadata = try metadata([:])
        #expect(metadata.issuer == Self.issuer)
        #expect(metadata.authorizationEndpoint == Self.issuer + "/authorize")
        #expect(metadata.tokenEndpoint == Self.issuer + "/token")
        #expect(metadata.userinfoEndpoint == Self.issuer + "/userinfo")
        #expect(metadata.jwksURI == Self.issuer + "/jwks")
        #expect(metadata.revocationEndpoint == Self.issuer + "/revoke")
        #expect(metadata.idTokenAlgorithms == [.rs256])
        #expect(metadata.supportsPKCE)
        #expect(!metadata.supportsFormPost)
        #expect(metadata.clientAuthentication == .clientSecretBasic)
        #expect(metadata.scopes == ["openid", "email", "profile"])
    }

    @Test func readsTheEndSessionEndpointWhenAdvertised() throws {
        #expect(try metadata([:]).endSessionEndpoint == nil)
        let entra = try metadata(["end_session_endpoint": .string(Self.issuer + "/oauth2/v2.0/logout?x=1")])
        #expect(entra.endSessionEndpoint == Self.issuer + "/oauth2/v2.0/logout?x=1")
    }

    @Test func readsWhetherTheIssuerNamesItselfInAuthorizationResponses() throws {
        #expect(try metadata([:]).issuerInAuthorizationResponse == false)
        let promising = try metadata(["authorization_response_iss_parameter_supported": true])
        #expect(promising.issuerInAuthorizationResponse)
        #expect(OIDCPlugin(metadata: promising).sendsIssuerInAuthorizationResponse)
        #expect(!OIDCPlugin(metadata: try metadata([:])).sendsIssuerInAuthorizationResponse)
        #expect(!OIDCPlugin().sendsIssuerInAuthorizationResponse)
        let wrongType = refusal(["authorization_response_iss_parameter_supported": "true"])
        #expect(wrongType?.code == .invalidDocument)
        #expect(wrongType?.field == "authorization_response_iss_parameter_supported")
    }

    @Test func readsThePushedAuthorizationRequestMetadata() throws {
        let plain = try metadata([:])
        #expect(plain.pushedAuthorizationRequestEndpoint == nil)
        #expect(!plain.requiresPushedAuthorizationRequests)
        let pushing = try metadata([
            "pushed_authorization_request_endpoint": .string(Self.issuer + "/par"),
            "require_pushed_authorization_requests": true,
        ])
        #expect(pushing.pushedAuthorizationRequestEndpoint == Self.issuer + "/par")
        #expect(pushing.requiresPushedAuthorizationRequests)
        #expect(OIDCPlugin(metadata: pushing).defaultEndpoints.pushedAuthorizationRequest == Self.issuer + "/par")
        #expect(OIDCPlugin(metadata: pushing).requiresPushedAuthorizationRequests)
        let insecure = refusal(["pushed_authorization_request_endpoint": "http://login.example.com/par"])
        #expect(insecure?.code == .insecureEndpoint)
        #expect(insecure?.field == "pushed_authorization_request_endpoint")
        #expect(refusal(["require_pushed_authorization_requests": "yes"])?.code == .invalidDocument)
        #expect(!plain.requiresSignedRequestObject)
        let signing = try metadata(["require_signed_request_object": true])
        #expect(OIDCPlugin(metadata: signing).requiresSignedRequestObject)
    }

    @Test func refusesADocumentWhoseIssuerDiffersFromTheConfiguredOne() {
        let error = refusal([:], expectedIssuer: "https://login.example.com/tenant")
        #expect(error?.code == .issuerMismatch)
        #expect(error?.field == "issuer")
        // A trailing slash is a different issuer too: the comparison is exact.
        #expect(refusal([:], expectedIssuer: Self.issuer + "/")?.code == .issuerMismatch)
        #expect(refusal(["issuer": .string(Self.issuer + "1")])?.code == .issuerMismatch)
        #expect(refusal(["issuer": .null])?.code == .missingMetadata)
        #expect(refusal(["issuer": 42])?.code == .invalidDocument)
    }

    @Test func refusesMissingEndpointsTheCodeFlowNeeds() {
        for field in [
            "authorization_endpoint", "token_endpoint", "jwks_uri", "response_types_supported",
            "id_token_signing_alg_values_supported",
        ] {
            let error = refusal([field: .null])
            #expect(error?.code == .missingMetadata, "\(field)")
            #expect(error?.field == field)
        }
    }

    @Test func refusesPlainHTTPEndpointsExceptOnLoopbackHosts() throws {
        for field in [
            "authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint", "revocation_endpoint",
            "end_session_endpoint",
        ] {
            let error = refusal([field: "http://login.example.com/x"])
            #expect(error?.code == .insecureEndpoint, "\(field)")
            #expect(error?.field == field)
        }
        #expect(refusal(["jwks_uri": "ftp://login.example.com/jwks"])?.code == .insecureEndpoint)
        #expect(refusal(["token_endpoint": "https://user:pw@login.example.com/token"])?.code == .insecureEndpoint)
        #expect(refusal(["authorization_endpoint": "https://login.example.com/a#frag"])?.code == .insecureEndpoint)
        #expect(refusal(["token_endpoint": "not a url"])?.code == .insecureEndpoint)
        for loopback in ["http://127.0.0.1:8080/jwks", "http://localhost/jwks", "http://[::1]:9/jwks"] {
            #expect(try metadata(["jwks_uri": .string(loopback)]).jwksURI == loopback)
        }
        #expect(refusal(["jwks_uri": "http://127.0.0.1.evil.example/jwks"])?.code == .insecureEndpoint)
    }

    @Test func neverAcceptsNoneOrHMACWhateverTheIssuerAdvertises() throws {
        let error = refusal(["id_token_signing_alg_values_supported": ["none", "HS256", "HS512"]])
        #expect(error?.code == .unsupportedMetadata)
        #expect(error?.field == "id_token_signing_alg_values_supported")
        let mixed = try metadata(["id_token_signing_alg_values_supported": ["none", "HS256", "RS256", "ES256", "XYZ"]])
        #expect(mixed.idTokenAlgorithms == [.rs256, .es256])
    }

    @Test func prefersBasicClientAuthenticationThenPost() throws {
        #expect(try metadata([:]).clientAuthentication == .clientSecretBasic)
        #expect(
            try metadata(["token_endpoint_auth_methods_supported": ["client_secret_post"]]).clientAuthentication
                == .clientSecretPost)
        // Absent means client_secret_basic (OpenID Connect Discovery §3).
        #expect(
            try metadata(["token_endpoint_auth_methods_supported": .null]).clientAuthentication == .clientSecretBasic)
        let jwtOnly = try metadata(["token_endpoint_auth_methods_supported": ["tls_client_auth", "private_key_jwt"]])
        #expect(jwtOnly.clientAuthentication == .privateKeyJWT)
        #expect(jwtOnly.clientAuthenticationChoice.allowed == [.privateKeyJWT])
        #expect(jwtOnly.advertisesTokenEndpointAuthMethods)
        // Nothing advertised: every method of ours may be configured.
        let silent = try metadata(["token_endpoint_auth_methods_supported": .null])
        #expect(!silent.advertisesTokenEndpointAuthMethods)
        #expect(silent.clientAuthenticationChoice.allowed == [.clientSecretBasic, .clientSecretPost, .privateKeyJWT])
        let error = refusal(["token_endpoint_auth_methods_supported": ["tls_client_auth", "client_secret_jwt"]])
        #expect(error?.code == .unsupportedMetadata)
    }

    @Test func offersPKCEOnlyWhenS256IsAdvertised() throws {
        #expect(try metadata([:]).supportsPKCE)
        #expect(try !metadata(["code_challenge_methods_supported": ["plain"]]).supportsPKCE)
        #expect(try !metadata(["code_challenge_methods_supported": .null]).supportsPKCE)
    }

    @Test func refusesAnIssuerWithoutTheCodeResponseType() {
        let error = refusal(["response_types_supported": ["id_token", "token id_token"]])
        #expect(error?.code == .unsupportedMetadata)
        #expect(error?.field == "response_types_supported")
    }

    @Test func refusesMembersOfTheWrongType() {
        #expect(refusal(["token_endpoint": ["https://a"]])?.code == .invalidDocument)
        #expect(refusal(["code_challenge_methods_supported": "S256"])?.code == .invalidDocument)
        #expect(refusal(["scopes_supported": [1, 2]])?.code == .invalidDocument)
        do {
            _ = try OIDCProviderMetadata(json: ["a", "b"], expectedIssuer: Self.issuer)
            Issue.record("expected a refusal")
        } catch {
            #expect(error.code == .invalidDocument)
        }
    }
}
