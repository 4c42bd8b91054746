import AuthFlowJOSE
import Foundation

/// Id_tokens in each provider's own shape, RS256-signed with the provider's current key (header `kid`).
extension SandboxIdentityProvider {
    /// Signs an id_token for `identity`, with the claims the real provider puts in it (see each emulator's
    /// ``SandboxEmulator/idTokenClaims(_:identity:scopes:authTime:authorizedParty:random:)``).
    func signIDToken(
        provider: SandboxProvider, clientID: String, identity: SandboxIdentity, scopes: [String], nonce: String?,
        authTime: Int64, accessToken: String?, authorizedParty: String? = nil
    ) throws(SandboxError) -> String {
        let emulator = provider.emulator
        let ring = try keyRing(for: provider)
        let issuedAt = Int64(now.timeIntervalSince1970)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer(for: provider) ?? baseURL + provider.pathPrefix), "aud": .string(clientID),
            "sub": .string(identity.subject), "iat": .integer(issuedAt),
            "exp": .integer(issuedAt + emulator.idTokenLifetime),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken { claims["at_hash"] = .string(Self.accessTokenHash(accessToken)) }
        guard
            let full = emulator.idTokenClaims(
                claims, identity: identity, scopes: scopes, authTime: authTime, authorizedParty: authorizedParty,
                random: configuration.random)
        else {
            throw SandboxError(
                code: .keyFailure, message: "\(provider.displayName) id_tokens are not signed here", provider: provider)
        }
        return try signJWT(full, provider: provider, ring: ring, header: emulator.idTokenHeader)
    }

    /// Signs `claims` RS256 with the current key of `ring` (header `kid`, plus `header`).
    func signJWT(
        _ claims: [String: JSONValue], provider: SandboxProvider, ring: SigningKeyRing, header: [String: JSONValue]
    ) throws(SandboxError) -> String {
        let payload = Array(JSONValue.object(claims).serialized().utf8)
        do {
            return try JWS.sign(
                payload: payload, key: ring.current, algorithm: idTokenAlgorithm(provider), extraHeader: header)
        } catch {
            throw SandboxError(
                code: .keyFailure, message: "could not sign an id_token: \(error.message)", provider: provider)
        }
    }

    /// RS256, or PS256 for the OpenID issuer in its FAPI 2.0 mode (the profile allows PS256, ES256, EdDSA).
    func idTokenAlgorithm(_ provider: SandboxProvider) -> JWSAlgorithm {
        provider == .google && configuration.fapi2 ? .ps256 : .rs256
    }

    /// OIDC `at_hash`: base64url of the left half of SHA-256 over the access token.
    static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(Digest.sha256(Array(accessToken.utf8)).prefix(16))
    }
}
