package import AuthFlow
package import AuthFlowJOSE

/// What an OpenID Connect issuer's discovery document says, checked and reduced to what a relying party
/// using the authorization-code flow needs.
///
/// Create it with ``init(json:expectedIssuer:)`` (or let ``OIDCDiscovery`` fetch it). Checks, in order:
/// the body is a JSON object; `issuer` equals the configured issuer byte for byte (Discovery §4.3);
/// `authorization_endpoint`, `token_endpoint` and `jwks_uri` are present; every endpoint is `https://`
/// (`http://` only on loopback hosts); `response_types_supported` offers `code`; at least one advertised
/// id_token algorithm is asymmetric (`none` and HMAC are never accepted); the client can authenticate with
/// `client_secret_basic`, `client_secret_post` or `private_key_jwt`.
package struct OIDCProviderMetadata: Sendable, Hashable {
    /// The asymmetric id_token algorithms AuthFlow can verify.
    package static let supportedIDTokenAlgorithms: Set<JWSAlgorithm> = JWSAlgorithm.asymmetric

    /// The issuer, equal to the configured one.
    package let issuer: String
    /// `authorization_endpoint`.
    package let authorizationEndpoint: String
    /// `token_endpoint`.
    package let tokenEndpoint: String
    /// `userinfo_endpoint`, when advertised.
    package let userinfoEndpoint: String?
    /// `jwks_uri`.
    package let jwksURI: String
    /// `revocation_endpoint` (RFC 8414 / RFC 7009), when advertised.
    package let revocationEndpoint: String?
    /// `end_session_endpoint` (OpenID Connect RP-Initiated Logout 1.0 §2.1), when advertised: provider logout.
    package let endSessionEndpoint: String?
    /// The id_token algorithms accepted: `id_token_signing_alg_values_supported` ∩ the asymmetric set.
    package let idTokenAlgorithms: Set<JWSAlgorithm>
    /// `token_endpoint_auth_methods_supported` as advertised (`["client_secret_basic"]` when absent, the
    /// specification's default).
    package let tokenEndpointAuthMethods: [String]
    /// Whether the document lists `token_endpoint_auth_methods_supported` (when it does, `client_auth` must
    /// name one of them).
    package let advertisesTokenEndpointAuthMethods: Bool
    /// `code_challenge_methods_supported` as advertised (empty when absent: no PKCE).
    package let codeChallengeMethods: [String]
    /// `response_modes_supported` as advertised (`["query", "fragment"]` when absent, the default).
    package let responseModes: [String]
    /// `scopes_supported`, when advertised.
    package let scopes: [String]?
    /// `authorization_response_iss_parameter_supported` (RFC 9207): every authorization response carries
    /// `iss`, so one without it is refused. `false` when absent.
    package let issuerInAuthorizationResponse: Bool
    /// `pushed_authorization_request_endpoint` (RFC 9126 §5), when advertised: `par: auto` pushes sign-ins there.
    package let pushedAuthorizationRequestEndpoint: String?
    /// `require_pushed_authorization_requests` (RFC 9126 §5): the issuer accepts only pushed authorization
    /// requests, so `par: off` is a configuration error. `false` when absent.
    package let requiresPushedAuthorizationRequests: Bool
    /// `require_signed_request_object` (RFC 9101 §10.5): the issuer accepts only signed request objects, so
    /// sign-ins send one (with the `private_key_jwt` key). `false` when absent.
    package let requiresSignedRequestObject: Bool
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1), when advertised: `dpop: auto` binds tokens then.
    package let dpopSigningAlgorithms: [String]?
    /// `backchannel_logout_supported` (OpenID Connect Back-Channel Logout 1.0 §2.1): the issuer sends logout
    /// tokens, served at `POST /auth/{name}/backchannel-logout`. `false` when absent.
    package let backchannelLogoutSupported: Bool
    /// `frontchannel_logout_supported` (OpenID Connect Front-Channel Logout 1.0 §3): the issuer renders the
    /// relying party's logout URI in an iframe, served at `GET /auth/{name}/frontchannel-logout`. `false` when
    /// absent.
    package let frontchannelLogoutSupported: Bool
    /// `frontchannel_logout_session_required` (Front-Channel Logout 1.0 §3): the issuer sends `iss` and `sid` to
    /// the front-channel logout URI, so a request without them is refused. `false` when absent.
    package let frontchannelLogoutSessionRequired: Bool

    /// Checks a discovery document against the configured issuer.
    ///
    /// - Throws: ``OIDCDiscoveryError`` with `invalid_discovery_document`, `issuer_mismatch`,
    ///   `missing_metadata`, `insecure_endpoint` or `unsupported_metadata`.
    package init(json: JSONValue, expectedIssuer: String) throws(OIDCDiscoveryError) {
        guard let object = json.objectValue else {
            throw OIDCDiscoveryError(
                .invalidDocument, "expected the discovery document to be a JSON object, found another JSON value",
                issuer: expectedIssuer)
        }
        let reader = Reader(object: object, issuer: expectedIssuer)
        guard let issuer = try reader.string("issuer") else {
            throw reader.missing("issuer")
        }
        guard issuer == expectedIssuer else {
            throw OIDCDiscoveryError(
                .issuerMismatch,
                "expected the discovery document's issuer to equal the configured issuer '\(expectedIssuer)' exactly "
                    + "(OpenID Connect Discovery §4.3), found " + Self.list([issuer]),
                issuer: expectedIssuer, field: "issuer")
        }
        self.issuer = issuer
        authorizationEndpoint = try reader.endpoint("authorization_endpoint", allowsQuery: true, required: true) ?? ""
        tokenEndpoint = try reader.endpoint("token_endpoint", allowsQuery: false, required: true) ?? ""
        jwksURI = try reader.endpoint("jwks_uri", allowsQuery: true, required: true) ?? ""
        userinfoEndpoint = try reader.endpoint("userinfo_endpoint", allowsQuery: true, required: false)
        revocationEndpoint = try reader.endpoint("revocation_endpoint", allowsQuery: false, required: false)
        endSessionEndpoint = try reader.endpoint("end_session_endpoint", allowsQuery: true, required: false)
        pushedAuthorizationRequestEndpoint = try reader.endpoint(
            "pushed_authorization_request_endpoint", allowsQuery: false, required: false)

        guard let responseTypes = try reader.strings("response_types_supported") else {
            throw reader.missing("response_types_supported")
        }
        guard responseTypes.contains("code") else {
            throw OIDCDiscoveryError(
                .unsupportedMetadata,
                "expected response_types_supported to offer 'code' (the authorization-code flow), found "
                    + Self.list(responseTypes),
                issuer: expectedIssuer, field: "response_types_supported")
        }

        idTokenAlgorithms = try Self.idTokenAlgorithms(reader, expectedIssuer: expectedIssuer)
        let authMethods = try reader.strings("token_endpoint_auth_methods_supported")
        advertisesTokenEndpointAuthMethods = authMethods != nil
        tokenEndpointAuthMethods = try Self.tokenEndpointAuthMethods(authMethods, expectedIssuer: expectedIssuer)
        codeChallengeMethods = try reader.strings("code_challenge_methods_supported") ?? []
        responseModes = try reader.strings("response_modes_supported") ?? ["query", "fragment"]
        scopes = try reader.strings("scopes_supported")
        issuerInAuthorizationResponse = try reader.bool("authorization_response_iss_parameter_supported") ?? false
        backchannelLogoutSupported = try reader.bool("backchannel_logout_supported") ?? false
        frontchannelLogoutSupported = try reader.bool("frontchannel_logout_supported") ?? false
        frontchannelLogoutSessionRequired = try reader.bool("frontchannel_logout_session_required") ?? false
        requiresPushedAuthorizationRequests = try reader.bool("require_pushed_authorization_requests") ?? false
        requiresSignedRequestObject = try reader.bool("require_signed_request_object") ?? false
        dpopSigningAlgorithms = try reader.strings("dpop_signing_alg_values_supported")
    }

    /// The advertised id_token algorithms AuthFlow can verify; at least one.
    private static func idTokenAlgorithms(_ reader: Reader, expectedIssuer: String) throws(OIDCDiscoveryError)
        -> Set<JWSAlgorithm>
    {
        guard let advertised = try reader.strings("id_token_signing_alg_values_supported") else {
            throw reader.missing("id_token_signing_alg_values_supported")
        }
        let algorithms = Set(advertised.compactMap(JWSAlgorithm.init(rawValue:)))
            .intersection(supportedIDTokenAlgorithms)
        guard !algorithms.isEmpty else {
            throw OIDCDiscoveryError(
                .unsupportedMetadata,
                "expected id_token_signing_alg_values_supported to offer an asymmetric algorithm (RS256, PS256, "
                    + "ES256, EdDSA…; none and HMAC are never accepted), found " + list(advertised),
                issuer: expectedIssuer, field: "id_token_signing_alg_values_supported")
        }
        return algorithms
    }

    /// The advertised token-endpoint client authentication methods (`client_secret_basic` when none are); one
    /// of them must be one AuthFlow can use.
    private static func tokenEndpointAuthMethods(_ advertised: [String]?, expectedIssuer: String)
        throws(OIDCDiscoveryError) -> [String]
    {
        let methods = advertised ?? ["client_secret_basic"]
        guard ClientAuthentication.configurable.contains(where: { methods.contains($0.rawValue) }) else {
            throw OIDCDiscoveryError(
                .unsupportedMetadata,
                "expected token_endpoint_auth_methods_supported to offer client_secret_basic, client_secret_post or "
                    + "private_key_jwt, found " + list(methods),
                issuer: expectedIssuer, field: "token_endpoint_auth_methods_supported")
        }
        return methods
    }

    /// Whether the issuer advertises PKCE with `S256`.
    package var supportsPKCE: Bool { codeChallengeMethods.contains("S256") }

    /// Whether the issuer advertises `response_mode=form_post`.
    package var supportsFormPost: Bool { responseModes.contains("form_post") }

    /// The methods `client_auth` may name and the default: `client_secret_basic` when advertised (or nothing is
    /// advertised), else the first of `client_secret_post` and `private_key_jwt` advertised.
    package var clientAuthenticationChoice: ClientAuthenticationChoice {
        .advertised(advertisesTokenEndpointAuthMethods ? tokenEndpointAuthMethods : nil, preferred: .clientSecretBasic)
    }

    /// The default client authentication (see ``clientAuthenticationChoice``).
    package var clientAuthentication: ClientAuthentication { clientAuthenticationChoice.defaultMethod }

    static func list(_ values: [String]) -> String {
        guard !values.isEmpty else { return "none" }
        let shown = values.prefix(8).map { value in
            let clipped = value.count > 40 ? String(value.prefix(40)) + "…" : value
            return "'\(clipped)'"
        }
        return shown.joined(separator: ", ") + (values.count > 8 ? ", …" : "")
    }

    /// Typed access to the document's members.
    private struct Reader {
        let object: [String: JSONValue]
        let issuer: String

        func missing(_ field: String) -> OIDCDiscoveryError {
            OIDCDiscoveryError(
                .missingMetadata, "expected the discovery document to have '\(field)', found none", issuer: issuer,
                field: field)
        }

        func wrongType(_ field: String, _ expected: String) -> OIDCDiscoveryError {
            OIDCDiscoveryError(
                .invalidDocument, "expected '\(field)' to be \(expected), found another JSON value", issuer: issuer,
                field: field)
        }

        func string(_ field: String) throws(OIDCDiscoveryError) -> String? {
            guard let value = object[field], value != .null else { return nil }
            guard let text = value.stringValue else { throw wrongType(field, "a string") }
            return text
        }

        func bool(_ field: String) throws(OIDCDiscoveryError) -> Bool? {
            guard let value = object[field], value != .null else { return nil }
            guard case .bool(let flag) = value else { throw wrongType(field, "a boolean") }
            return flag
        }

        func strings(_ field: String) throws(OIDCDiscoveryError) -> [String]? {
            guard let value = object[field], value != .null else { return nil }
            guard let array = value.arrayValue else { throw wrongType(field, "an array of strings") }
            var result: [String] = []
            for element in array {
                guard let text = element.stringValue else { throw wrongType(field, "an array of strings") }
                result.append(text)
            }
            return result
        }

        func endpoint(_ field: String, allowsQuery: Bool, required: Bool) throws(OIDCDiscoveryError) -> String? {
            guard let url = try string(field), !url.isEmpty else {
                if required { throw missing(field) }
                return nil
            }
            if let problem = DiscoveryURL.problem(with: url, allowsQuery: allowsQuery) {
                throw OIDCDiscoveryError(.insecureEndpoint, "\(field): \(problem)", issuer: issuer, field: field)
            }
            return url
        }
    }
}
