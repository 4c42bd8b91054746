import AuthFlowJOSE
import Foundation

/// Id_tokens in each provider's own shape, RS256-signed with the provider's current key (header `kid`).
extension SandboxIdentityProvider {
    /// How long an id_token is valid: Apple's about 10 minutes, an hour elsewhere.
    static func idTokenLifetime(_ provider: SandboxProvider) -> Int64 { provider == .apple ? 600 : 3600 }

    /// Signs an id_token for `identity`, with the claims the real provider puts in it.
    ///
    /// - Apple: `email_verified` and `is_private_email` as the strings `"true"`/`"false"` (as Apple sends
    ///   them), `nonce_supported` as a JSON boolean, `auth_time`, `at_hash`.
    /// - Google: `azp`, JSON-boolean `email_verified`, profile claims with the `profile` scope, `at_hash`.
    /// - Facebook (OIDC code flow): `jti`, name claims, `email` with the `email` scope.
    func signIDToken(
        provider: SandboxProvider, clientID: String, identity: SandboxIdentity, scopes: [String], nonce: String?,
        authTime: Int64, accessToken: String?, authorizedParty: String? = nil
    ) throws(SandboxError) -> String {
        let ring = try keyRing(for: provider)
        let issuedAt = Int64(now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer(for: provider) ?? baseURL + provider.pathPrefix), "aud": .string(clientID),
            "sub": .string(identity.subject), "iat": .integer(issuedAt),
            "exp": .integer(issuedAt + Self.idTokenLifetime(provider)),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken { claims["at_hash"] = .string(Self.accessTokenHash(accessToken)) }
        let wantsEmail = scopes.contains("email")
        switch provider {
        case .apple:
            claims["auth_time"] = .integer(authTime)
            claims["nonce_supported"] = .bool(true)
            if wantsEmail, let email = identity.email {
                claims["email"] = .string(email)
                claims["email_verified"] = .string("true")
                claims["is_private_email"] = .string(identity.isPrivateEmail ? "true" : "false")
            }
        case .google:
            claims["azp"] = .string(authorizedParty ?? clientID)
            if wantsEmail, let email = identity.email {
                claims["email"] = .string(email)
                claims["email_verified"] = .bool(identity.emailVerified)
            }
            if scopes.contains("profile") {
                if let name = identity.name { claims["name"] = .string(name) }
                if let given = identity.givenName { claims["given_name"] = .string(given) }
                if let family = identity.familyName { claims["family_name"] = .string(family) }
            }
        case .facebook:
            claims["jti"] = .string(hex(configuration.random.bytes(16)))
            if let name = identity.name { claims["name"] = .string(name) }
            if let given = identity.givenName { claims["given_name"] = .string(given) }
            if let family = identity.familyName { claims["family_name"] = .string(family) }
            if wantsEmail, let email = identity.email { claims["email"] = .string(email) }
        default:
            throw SandboxError(
                code: .keyFailure, message: "\(provider.displayName) id_tokens are not signed here", provider: provider)
        }
        return try signJWT(
            claims, provider: provider, ring: ring, header: provider == .google ? ["typ": .string("JWT")] : [:])
    }

    /// Signs `claims` RS256 with the current key of `ring` (header `kid`, plus `header`).
    func signJWT(
        _ claims: [String: JSONValue], provider: SandboxProvider, ring: SigningKeyRing, header: [String: JSONValue]
    ) throws(SandboxError) -> String {
        let payload = Array(JSONValue.object(claims).serialized().utf8)
        do {
            return try JWS.sign(payload: payload, key: ring.current, algorithm: .rs256, extraHeader: header)
        } catch {
            throw SandboxError(
                code: .keyFailure, message: "could not sign an id_token: \(error.message)", provider: provider)
        }
    }

    /// OIDC `at_hash`: base64url of the left half of SHA-256 over the access token.
    static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(Digest.sha256(Array(accessToken.utf8)).prefix(16))
    }
}
