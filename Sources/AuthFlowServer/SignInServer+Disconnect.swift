import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE

extension SignInServer {
    /// `POST /auth/{provider}/disconnect`: unlinks every identity of that provider from the signed-in user,
    /// revokes their tokens at the provider (where it has a revocation endpoint) and ends the sessions signed
    /// in with them; 204, or 302 to a valid `return_to`.
    ///
    /// Refused: another origin (`cross_origin_request`), no session (`not_signed_in`), no such identity
    /// (`not_linked`), or the user's last identity (`last_identity`: delete the account instead).
    func disconnect(_ request: HTTPServerRequest, provider name: String) async throws(ServerError)
        -> HTTPServerResponse
    {
        try checkOrigin(request)
        _ = try provider(name)
        let returnTo = try returnToPolicy.validate(try Self.returnToParameter(request))
        let session = try await requireSession(request)
        let accounts = stores.accounts
        let user = session.record.userID
        noteChanged(user: user)
        let removed: [RemovedIdentity]
        do throws(StoreError) {
            removed = try await accounts.unlinkProvider(name, from: user)
        } catch {
            switch error.code {
            case .identityNotFound:
                throw ServerError(
                    .notLinked, "expected an identity of provider '\(name)' on this user, found none", status: 400,
                    provider: name)
            case .lastIdentity:
                throw ServerError(
                    .lastIdentity,
                    "expected the user to keep another identity to sign in with, found none (delete the account instead)",
                    status: 400, provider: name)
            case .userNotFound:
                throw ServerError(.notSignedIn, "expected a signed-in user, found none", status: 401)
            default:
                throw ServerError(error, while: "unlink the provider", store: "accounts")
            }
        }
        var endedOwnSession = false
        for identity in removed {
            noteChanged(identity: identity.identity.key)
            if let tokens = identity.tokens { await revoke(tokens, provider: name) }
            _ = try? await stores.sessions.deleteSessions(identity: identity.identity.key)
            if identity.identity.key == session.record.identity { endedOwnSession = true }
        }
        logger.log(.info, "provider disconnected", metadata: ["provider": name])
        var response: HTTPServerResponse = returnTo.map { .redirect(to: $0, status: 302) } ?? .empty(status: 204)
        if endedOwnSession { response.addCookie(cookies.clearedSessionCookie()) }
        return response
    }

    /// `POST /auth/account/delete`: deletes the signed-in user as ``deleteUser(_:)`` does; 204 (or 302 to a
    /// valid `return_to`).
    func deleteAccount(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        try checkOrigin(request)
        let returnTo = try returnToPolicy.validate(try Self.returnToParameter(request))
        let session = try await requireSession(request)
        _ = try await deleteUser(session.record.userID)
        var response: HTTPServerResponse = returnTo.map { .redirect(to: $0, status: 302) } ?? .empty(status: 204)
        response.addCookie(cookies.clearedSessionCookie())
        return response
    }

    /// What ``SignInServer/deleteUser(_:)`` did.
    public struct AccountDeletion: Sendable, Hashable {
        /// The identities deleted with the user.
        public var identities: [LinkedIdentity]
        /// How many sessions of the user were ended.
        public var endedSessions: Int
        /// Providers whose stored tokens could not be revoked (unreachable, refused, or no longer configured),
        /// one entry per token; the deletion went ahead regardless.
        public var unrevokedProviders: [String]
    }

    /// Deletes a user the way account deletion (`POST /auth/account/delete`, `authflow users delete`) does:
    /// revokes every stored token at its provider, ends every session of the user, then deletes the user with
    /// its identities and tokens (in this order, so a failure part-way never leaves a live session for a
    /// deleted user). A revocation that fails is logged and the deletion goes ahead, as does one whose tokens
    /// no longer decrypt (sealed under a secret since dropped from `server.previous_secrets`): those stay unrevoked.
    ///
    /// - Throws: ``ServerError`` `store_unavailable` when a store fails, including for a user that does not
    ///   exist (the store's `user_not_found`); nothing after the failing step is done.
    public func deleteUser(_ user: UserID) async throws(ServerError) -> AccountDeletion {
        let accounts = stores.accounts
        let sessions = stores.sessions
        noteChanged(user: user)
        let tokens = try await storing("read the user's tokens") { () async throws(StoreError) in
            do throws(StoreError) {
                return try await accounts.tokens(ofUser: user)
            } catch  where error.code == .corruptData {
                // A token sealed under a dropped secret: the account still goes; what decrypts is revoked below.
                return [:]
            }
        }
        var unrevoked: [String] = []
        for (identity, stored) in tokens.sorted(by: { $0.key.description < $1.key.description }) {
            if await !revoke(stored, provider: identity.provider) { unrevoked.append(identity.provider) }
        }
        let ended = try await storing("end the user's sessions", store: "sessions") { () async throws(StoreError) in
            try await sessions.deleteSessions(userID: user)
        }
        let removed = try await storing("delete the user") { () async throws(StoreError) in
            try await accounts.deleteUser(user)
        }
        // Tokens saved by a sign-in that raced the deletion were not in the first read: revoke them too.
        for identity in removed where tokens[identity.identity.key] == nil {
            if let stored = identity.tokens, await !revoke(stored, provider: identity.identity.provider) {
                unrevoked.append(identity.identity.provider)
            }
        }
        logger.log(.info, "account deleted", metadata: ["identities": "\(removed.count)"])
        return AccountDeletion(identities: removed.map(\.identity), endedSessions: ended, unrevokedProviders: unrevoked)
    }

    /// How long a revocation request may take before the unlink or deletion goes ahead without it.
    static let revocationTimeout = 10.0

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
                provider: name, token: token, tokenTypeHint: hint, clientID: tokens.clientID)
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
