import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// Token issuance and revocation shared by the emulators.
extension SandboxIdentityProvider {
    struct IssuedTokens {
        let grant: GrantRecord
        let accessToken: String
        let refreshToken: String?
    }

    /// Creates the grant for a redeemed code with its first access token (and a refresh token if `withRefresh`).
    func issueTokens(code: String, record: CodeRecord, withRefresh: Bool) -> IssuedTokens {
        let provider = record.request.provider
        let grantID = randomToken()
        let accessToken = randomToken(prefix: Self.accessTokenPrefix(provider))
        let refreshToken = withRefresh ? randomToken(prefix: Self.refreshTokenPrefix(provider)) : nil
        let expiresAt = now.addingTimeInterval(Double(provider.accessTokenLifetime))
        let grant = state.withLock { state in
            let grant = state.createGrant(code: code, record: record, id: grantID)
            state.accessTokens[accessToken] = AccessTokenRecord(grantID: grantID, expiresAt: expiresAt)
            if let refreshToken { state.refreshTokens[refreshToken] = RefreshTokenRecord(grantID: grantID) }
            return grant
        }
        return IssuedTokens(grant: grant, accessToken: accessToken, refreshToken: refreshToken)
    }

    /// A new access token under an existing grant.
    func issueAccessToken(grant: GrantRecord) -> String {
        let accessToken = randomToken(prefix: Self.accessTokenPrefix(grant.provider))
        let expiresAt = now.addingTimeInterval(Double(grant.provider.accessTokenLifetime))
        state.withLock { $0.accessTokens[accessToken] = AccessTokenRecord(grantID: grant.id, expiresAt: expiresAt) }
        return accessToken
    }

    /// A successful token response: JSON with `Cache-Control: no-store` (RFC 6749 §5.1).
    func tokenResponse(_ object: [String: JSONValue]) -> HTTPServerResponse {
        var response = HTTPServerResponse.json(JSONValue.object(object).serialized(), status: 200)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Pragma"] = "no-cache"
        return response
    }

    /// What revoking a token does at a provider.
    struct RevocationRules {
        /// Google revokes the whole grant for any of its tokens; Apple and X revoke just an access token.
        var accessTokenRevokesGrant = false
        /// Apple: revoking the refresh token unlinks the app, so the next sign-in is a first consent again.
        var refreshTokenWithdrawsConsent = false
    }

    /// Records a revocation request and applies it when the token belongs to `clientID` (any client when nil).
    @discardableResult
    func revoke(
        token: String, hint: String?, provider: SandboxProvider, clientID: String?, rules: RevocationRules
    ) -> SandboxRevocation.TokenKind {
        let now = self.now
        return state.withLock { state in
            func owned(_ grantID: String) -> GrantRecord? {
                guard let grant = state.grants[grantID], grant.provider == provider,
                    clientID == nil || grant.clientID == clientID
                else { return nil }
                return grant
            }
            var kind = SandboxRevocation.TokenKind.unknown
            if let record = state.accessTokens[token], let grant = owned(record.grantID) {
                kind = .accessToken
                if rules.accessTokenRevokesGrant {
                    state.revokeGrant(grant.id)
                } else {
                    state.accessTokens[token]?.revoked = true
                }
            } else if let record = state.refreshTokens[token], let grant = owned(record.grantID) {
                kind = .refreshToken
                state.revokeGrant(grant.id)
                if rules.refreshTokenWithdrawsConsent {
                    state.consents.remove(
                        ConsentKey(provider: provider, clientID: grant.clientID, subject: grant.identity.subject))
                }
            }
            state.revocations[provider, default: []].append(
                SandboxRevocation(token: token, tokenTypeHint: hint, kind: kind, clientID: clientID, revokedAt: now))
            return kind
        }
    }

    static func accessTokenPrefix(_ provider: SandboxProvider) -> String { provider.emulator.accessTokenPrefix }

    static func refreshTokenPrefix(_ provider: SandboxProvider) -> String { provider.emulator.refreshTokenPrefix }

    /// Seconds since 1970, the unit of JWT timestamps.
    var epochSeconds: Int64 { Int64(now.timeIntervalSince1970) }
}
