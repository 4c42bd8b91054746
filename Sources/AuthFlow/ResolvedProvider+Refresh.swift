public import AuthFlowHTTP
public import Foundation

extension ResolvedProvider {
    /// The refresh-token grant request (RFC 6749 §6), with the client authenticated per
    /// ``clientAuthentication`` (Apple: a fresh ES256 client-secret JWT minted for `now`).
    ///
    /// - Parameters:
    ///   - refreshToken: the refresh token to redeem.
    ///   - scopes: a narrower scope to ask for; `nil` keeps the granted one.
    ///   - now: the current time (for a minted client secret).
    ///   - clientSecretLifetime: lifetime of a minted client secret, in seconds.
    /// - Throws: ``SignInError`` with `refresh_unsupported` for a GET token endpoint (Facebook issues no
    ///   refresh tokens), `client_authentication_failed` when the secret JWT cannot be minted.
    public func refreshRequest(
        refreshToken: String, scopes: [String]? = nil, now: Date, clientSecretLifetime: Int64 = 300
    ) throws(SignInError) -> HTTPClientRequest {
        guard clientAuthentication != .clientSecretGet else {
            throw SignInError(
                .refreshUnsupported,
                "expected a provider with a refresh-token grant, found one whose token endpoint is a GET "
                    + "(it issues no refresh tokens)",
                provider: name)
        }
        var fields: [(String, String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scopes, !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        return try authenticatedRequest(
            url: endpoints.token ?? "", fields: fields, now: now, clientSecretLifetime: clientSecretLifetime)
    }
}
