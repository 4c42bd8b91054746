import AuthFlow
import AuthFlowJOSE

/// Revokes stored provider tokens when a provider is disconnected or an account deleted. Built once per server.
struct TokenRevoker: Sendable {
    let providers: ProviderDirectory
    let tokenOperations: TokenOperations
    let logger: any ServerLogger

    /// Revokes the refresh token (or, without one, the access token) at the provider's revocation endpoint,
    /// when it has one, through `TokenOperations` (which counts the request in the metrics); failures are
    /// logged, never thrown (the unlink or deletion goes ahead).
    @discardableResult
    func revoke(_ tokens: StoredTokens, provider name: String) async -> Bool {
        guard providers[name] != nil else {
            logger.log(.warning, "token not revoked: provider no longer configured", metadata: ["provider": name])
            return false
        }
        let token: String
        let hint: TokenTypeHint
        if let refresh = tokens.refreshToken, !refresh.isEmpty {
            (token, hint) = (refresh, .refreshToken)
        } else if let access = tokens.accessToken, !access.isEmpty {
            (token, hint) = (access, .accessToken)
        } else {
            return true
        }
        do throws(SignInError) {
            try await tokenOperations.revoke(
                provider: name, token: token, tokenTypeHint: hint, clientID: tokens.clientID,
                dpopKey: tokens.dpopKey)
            logger.log(.debug, "token revoked", metadata: ["provider": name, "token_type": hint.rawValue])
            return true
        } catch {
            switch error.code {
            case .revocationUnsupported:
                return true
            case .revocationFailed:
                logger.log(
                    .warning, "token revocation refused",
                    metadata: ["provider": name, "status": error.upstreamStatus.map { "\($0)" } ?? "none"])
            case .providerUnreachable:
                logger.log(.warning, "token revocation failed", metadata: ["provider": name])
            default:
                logger.log(
                    .warning, "token revocation failed", metadata: ["provider": name, "code": error.code.rawValue])
            }
            return false
        }
    }
}
