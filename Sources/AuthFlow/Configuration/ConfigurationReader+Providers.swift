import AuthFlowJOSE
internal import AuthFlowYAML

extension ConfigurationReader {
    static let providerKeys = [
        "type", "client_id", "client_secret", "client_secret_file", "audiences", "team_id", "key_id",
        "private_key_file", "scopes", "capabilities", "redirect_uri", "issuer", "endpoints", "authorization_params",
        "native_clients", "post_logout_redirect_uri", "client_auth", "claims", "par",
        "request_object", "dpop", "profile", "id_token_signed_response_alg",
    ]
    static let claimKeys = ["subject", "email", "email_verified", "name", "groups"]
    static let capabilityKeys = ["pkce", "oidc", "jwt_client_auth", "form_post"]
    static let endpointKeys = [
        "authorization", "token", "userinfo", "jwks", "revocation", "end_session", "pushed_authorization_request",
    ]
    /// Authorization-request parameters AuthFlow sets itself, with where their value comes from; an
    /// `authorization_params` entry may not override them.
    static let reservedAuthorizationParameters: [String: String] = [
        "response_type": "the code flow (always code)", "client_id": "client_id", "redirect_uri": "redirect_uri",
        "scope": "scopes", "state": "a fresh value per sign-in", "nonce": "a fresh value per sign-in (capability oidc)",
        "code_challenge": "a fresh PKCE verifier per sign-in (capability pkce)",
        "code_challenge_method": "capability pkce (always S256)", "response_mode": "capability form_post",
        "request": "AuthFlow (the signed request object when request_object is in effect)",
        "request_uri": "AuthFlow (the pushed authorization request's answer when par is in effect)",
    ]

    mutating func readProviders(_ node: YAMLNode, owner: YAMLMark, callbackBase: String?, publicURL: String? = nil)
        -> [ProviderSettings]
    {
        guard case .mapping(let pairs, _) = node, !pairs.isEmpty else {
            let found = node.mapping != nil ? "an empty mapping" : node.foundDescription
            report(
                .wrongType, "expected a mapping of provider names to settings for providers, found \(found)",
                at: node.mapping != nil || node.scalar?.isNull == true ? owner : node.mark)
            return []
        }
        var providers: [ProviderSettings] = []
        for (key, value) in pairs {
            guard ConfigurationSyntax.isValidProviderName(key.value) else {
                report(
                    .invalidProviderName,
                    "provider name \(YAMLError.quote(key.value)) may use only a-z, 0-9, _ and - (it is part of URLs)",
                    at: key.mark)
                continue
            }
            if let provider = readProvider(
                name: key.value, key: key, node: value, callbackBase: callbackBase, publicURL: publicURL)
            {
                providers.append(provider)
            }
        }
        return providers
    }

    private mutating func readProvider(
        name: String, key: YAMLScalar, node: YAMLNode, callbackBase: String?, publicURL: String?
    ) -> ProviderSettings? {
        let path = "providers.\(name)"
        guard
            let section = fields(
                node, owner: key.mark, path: path, known: Self.providerKeys + loader.providerOptionKeys)
        else { return nil }
        var keyLocations: [String: SourceLocation] = [:]
        for (fieldKey, _) in section.pairs { keyLocations[fieldKey.value] = location(fieldKey.mark) }

        let type = string(section.value("type"), path: section.path("type"))
        let typeLocation = section.value("type").map { location($0.mark) }
        // Sandbox mode registers a demo client when client_id is absent or its ${VAR} unset.
        let clientID = string(section.value("client_id"), path: section.path("client_id"), credential: true)
        if section.value("client_id") == nil, !isSandbox, !loader.typesWithoutClient.contains(type ?? name) {
            reportMissing("client_id", in: section)
        }

        let clientSecret = readClientSecret(section, path: path)
        let privateKey = readPrivateKey(section)
        let capabilities = readCapabilities(section, keyLocations: &keyLocations)
        let endpoints = readEndpoints(section, keyLocations: &keyLocations)
        let authorizationParameters = readAuthorizationParameters(section, keyLocations: &keyLocations)
        let scopes = readScopes(section)
        var redirectURI = url(section.value("redirect_uri"), path: section.path("redirect_uri"))
        if redirectURI == nil, section.value("redirect_uri") == nil, let callbackBase {
            redirectURI = "\(callbackBase)/\(name)/callback"
        }
        let claims = claims(section, keyLocations: &keyLocations)
        var settings = ProviderSettings(
            name: name, type: type ?? name, clientID: clientID, clientSecret: clientSecret,
            audiences: stringList(section.value("audiences"), path: section.path("audiences")) ?? [],
            teamID: string(section.value("team_id"), path: section.path("team_id"), credential: true),
            keyID: string(section.value("key_id"), path: section.path("key_id"), credential: true),
            privateKey: privateKey, scopes: scopes, capabilities: capabilities.values, redirectURI: redirectURI,
            issuer: url(section.value("issuer"), path: section.path("issuer"), allowsQuery: false),
            endpoints: endpoints, authorizationParameters: authorizationParameters, location: location(key.mark),
            typeLocation: typeLocation,
            capabilityLocations: capabilities.locations, keyLocations: keyLocations,
            nativeClients: nativeClients(section),
            postLogoutRedirectURI: url(
                section.value("post_logout_redirect_uri"), path: section.path("post_logout_redirect_uri")),
            clientAuthentication: clientAuthentication(section), claims: claims)
        settings.options = readProviderOptions(section, publicURL: publicURL)
        settings.pushedAuthorization = mode(section, "par", default: .auto)
        settings.requestObject = mode(section, "request_object", default: .auto)
        settings.dpop = mode(section, "dpop", default: .auto)
        settings.profile = mode(section, "profile", default: .none)
        settings.idTokenSignedResponseAlgorithm = idTokenSignedResponseAlgorithm(section)
        return settings
    }

    /// `id_token_signed_response_alg`: the one algorithm the client registered for its id_tokens (OpenID Connect
    /// Dynamic Client Registration 1.0 §2); an asymmetric JWS algorithm name.
    private mutating func idTokenSignedResponseAlgorithm(_ section: Fields) -> JWSAlgorithm? {
        let path = section.path("id_token_signed_response_alg")
        guard let text = string(section.value("id_token_signed_response_alg"), path: path) else { return nil }
        if let algorithm = JWSAlgorithm(rawValue: text), JWSAlgorithm.asymmetric.contains(algorithm) {
            return algorithm
        }
        report(
            .invalidValue,
            "expected an asymmetric JWS algorithm ("
                + JWSAlgorithm.asymmetric.map(\.rawValue).sorted().joined(separator: ", ")
                + ") for \(path), found \(YAMLError.quote(text))",
            at: section.value("id_token_signed_response_alg")?.mark)
        return nil
    }

    /// `client_secret` or `client_secret_file` (trimmed), not both.
    private mutating func readClientSecret(_ section: Fields, path: String) -> Secret? {
        if section.value("client_secret") != nil, let fileKey = section["client_secret_file"]?.key {
            report(
                .conflictingKeys, "use either client_secret or client_secret_file in \(path), not both",
                at: fileKey.mark)
        } else if let file = fileContents(section.value("client_secret_file"), path: section.path("client_secret_file"))
        {
            let trimmed = Self.trimmed(file.text)
            if trimmed.isEmpty {
                report(
                    .unreadableFile,
                    "\(section.path("client_secret_file")) \(YAMLError.quote(file.file, limit: 4096)) is empty",
                    at: file.mark)
            } else {
                return Secret(trimmed)
            }
        } else {
            return string(section.value("client_secret"), path: section.path("client_secret"), credential: true)
                .map(Secret.init)
        }
        return nil
    }

    /// `private_key_file`: a PEM private key.
    private mutating func readPrivateKey(_ section: Fields) -> Secret? {
        if let file = fileContents(section.value("private_key_file"), path: section.path("private_key_file")) {
            if file.text.contains("-----BEGIN ") && file.text.contains("PRIVATE KEY-----") {
                return Secret(file.text)
            } else {
                report(
                    .unreadableFile,
                    "\(section.path("private_key_file")) \(YAMLError.quote(file.file, limit: 4096)) does not hold a PEM private key "
                        + "(expected -----BEGIN PRIVATE KEY-----)", at: file.mark)
            }
        }
        return nil
    }

    /// `scopes`, each without spaces.
    private mutating func readScopes(_ section: Fields) -> [String]? {
        let scopes = stringList(section.value("scopes"), path: section.path("scopes"))
        for (index, scope) in (scopes ?? []).enumerated() where scope.contains(where: { $0 == " " || $0 == "\t" }) {
            let mark = section.value("scopes")?.sequence?[index].mark
            report(
                .invalidValue,
                "scope \(YAMLError.quote(scope)) in \(section.path("scopes")) contains a space; list each scope separately",
                at: mark)
        }
        return scopes
    }

    /// `client_auth`: one of ``ClientAuthentication/configurable``.
    private mutating func clientAuthentication(_ section: Fields) -> ClientAuthentication? {
        let path = section.path("client_auth")
        guard let text = string(section.value("client_auth"), path: path) else { return nil }
        let allowed = ClientAuthentication.configurable
        if let method = ClientAuthentication(rawValue: text), allowed.contains(method) { return method }
        report(
            .invalidValue,
            "expected one of \(allowed.map(\.rawValue).joined(separator: ", ")) for \(path), found \(YAMLError.quote(text))",
            at: section.value("client_auth")?.mark)
        return nil
    }

    /// A key naming one case of `Mode` (`par`: ``PushedAuthorizationMode``, `request_object`:
    /// ``RequestObjectMode``); `fallback` when absent or unknown (reported).
    private mutating func mode<Mode: RawRepresentable & CaseIterable>(
        _ section: Fields, _ key: String, default fallback: Mode
    ) -> Mode where Mode.RawValue == String {
        let path = section.path(key)
        guard let text = string(section.value(key), path: path) else { return fallback }
        if let mode = Mode(rawValue: text) { return mode }
        report(
            .invalidValue,
            "expected one of \(Mode.allCases.map(\.rawValue).joined(separator: ", ")) for \(path), "
                + "found \(YAMLError.quote(text))",
            at: section.value(key)?.mark)
        return fallback
    }

    /// `claims`: a mapping of identity members to claim names or dotted paths; `email_verified` may be a boolean.
    private mutating func claims(_ section: Fields, keyLocations: inout [String: SourceLocation]) -> ClaimMapping? {
        guard let pair = section["claims"],
            let fields = fields(pair.value, owner: pair.key.mark, path: section.path("claims"), known: Self.claimKeys)
        else { return nil }
        var mapping = ClaimMapping()
        for (key, value) in fields.pairs where Self.claimKeys.contains(key.value) {
            keyLocations["claims.\(key.value)"] = location(key.mark)
            let path = fields.path(key.value)
            if key.value == "email_verified", case .scalar(let scalar) = value, let flag = scalar.boolValue {
                mapping.emailVerified = .always(flag)
                continue
            }
            guard let text = string(value, path: path) else { continue }
            guard let claimPath = ClaimMapping.Path(text) else {
                report(
                    .invalidValue,
                    "expected a claim name or a dotted path such as data.id for \(path), found \(YAMLError.quote(text))",
                    at: value.mark)
                continue
            }
            switch key.value {
            case "subject": mapping.subject = claimPath
            case "email": mapping.email = claimPath
            case "email_verified": mapping.emailVerified = .claim(claimPath)
            case "name": mapping.name = claimPath
            default: mapping.groups = claimPath
            }
        }
        return mapping
    }

    /// `native_clients`: a list of non-empty client ids without spaces.
    private mutating func nativeClients(_ section: Fields) -> [String] {
        let path = section.path("native_clients")
        guard let list = stringList(section.value("native_clients"), path: path) else { return [] }
        var clients: [String] = []
        for (index, client) in list.enumerated() {
            guard !client.isEmpty, !client.contains(where: { $0 == " " || $0 == "\t" }) else {
                report(
                    .invalidValue,
                    "expected a client id without spaces in \(path), found \(YAMLError.quote(client))",
                    at: section.value("native_clients")?.sequence?[index].mark)
                continue
            }
            if !clients.contains(client) { clients.append(client) }
        }
        return clients
    }

    private mutating func readCapabilities(_ section: Fields, keyLocations: inout [String: SourceLocation])
        -> (values: [String: Bool], locations: [String: SourceLocation])
    {
        guard let pair = section["capabilities"],
            let capabilities = fields(
                pair.value, owner: pair.key.mark, path: section.path("capabilities"), known: Self.capabilityKeys)
        else { return ([:], [:]) }
        var values: [String: Bool] = [:]
        var locations: [String: SourceLocation] = [:]
        for (key, value) in capabilities.pairs where Self.capabilityKeys.contains(key.value) {
            let keyLocation = location(key.mark)
            locations[key.value] = keyLocation
            keyLocations["capabilities.\(key.value)"] = keyLocation
            if let flag = bool(value, path: capabilities.path(key.value)) { values[key.value] = flag }
        }
        return (values, locations)
    }

    private mutating func readEndpoints(_ section: Fields, keyLocations: inout [String: SourceLocation])
        -> ProviderEndpoints
    {
        guard let pair = section["endpoints"],
            let endpoints = fields(
                pair.value, owner: pair.key.mark, path: section.path("endpoints"), known: Self.endpointKeys)
        else { return ProviderEndpoints() }
        for (key, _) in endpoints.pairs where Self.endpointKeys.contains(key.value) {
            keyLocations["endpoints.\(key.value)"] = location(key.mark)
        }
        func read(_ key: String) -> String? {
            url(endpoints.value(key), path: endpoints.path(key))
        }
        var result = ProviderEndpoints(
            authorization: read("authorization"), token: read("token"), userinfo: read("userinfo"),
            jwks: read("jwks"), revocation: read("revocation"), endSession: read("end_session"))
        result.pushedAuthorizationRequest = read("pushed_authorization_request")
        return result
    }

    /// `authorization_params`: extra parameters of the authorization request (e.g. Google's
    /// `access_type: offline`), a mapping of names to strings. Names AuthFlow sets itself are refused.
    private mutating func readAuthorizationParameters(_ section: Fields, keyLocations: inout [String: SourceLocation])
        -> [String: String]
    {
        guard let pair = section["authorization_params"] else { return [:] }
        let path = section.path("authorization_params")
        let pairs: [(key: YAMLScalar, value: YAMLNode)]
        switch pair.value {
        case .mapping(let mappingPairs, _): pairs = mappingPairs
        case .scalar(let scalar) where scalar.isNull: pairs = []
        default:
            report(
                .wrongType,
                "expected a mapping of parameter names to values for \(path) (e.g. {access_type: offline}), "
                    + "found \(pair.value.foundDescription)", at: pair.value.mark)
            return [:]
        }
        var parameters: [String: String] = [:]
        for (key, value) in pairs {
            let name = key.value
            guard ConfigurationSyntax.isValidParameterName(name) else {
                report(
                    .invalidValue,
                    "parameter name \(YAMLError.quote(name)) in \(path) may use only letters, digits, '_', '-' and '.'",
                    at: key.mark)
                continue
            }
            if let source = Self.reservedAuthorizationParameters[name] {
                report(
                    .invalidValue, "\(path) may not set \(name): AuthFlow sets it from \(source)", at: key.mark)
                continue
            }
            keyLocations["authorization_params.\(name)"] = location(key.mark)
            if let text = string(value, path: "\(path).\(name)") { parameters[name] = text }
        }
        return parameters
    }

    /// `text` without leading and trailing ASCII whitespace (secret files usually end with a newline).
    static func trimmed(_ text: String) -> String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        var scalars = Substring(text).unicodeScalars
        while let first = scalars.first, isSpace(first) { scalars.removeFirst() }
        while let last = scalars.last, isSpace(last) { scalars.removeLast() }
        return String(scalars)
    }
}
