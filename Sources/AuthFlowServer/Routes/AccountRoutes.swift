import AuthFlow
import AuthFlowHTTP

/// `POST /auth/{provider}/disconnect` and `POST /auth/account/delete`: what a signed-in user removes.
struct AccountRoutes: SessionUsing {
    let sessions: SessionService
    let stores: SignInServer.Stores
    let providers: ProviderDirectory
    let cookies: CookiePolicy
    let returnToPolicy: ReturnToPolicy
    let revoker: TokenRevoker
    let logger: any ServerLogger

    /// How long a revocation request may take before the unlink or deletion goes ahead without it.
    static let revocationTimeout = 10.0

    /// `POST /auth/{provider}/disconnect`: unlinks every identity of that provider from the signed-in user,
    /// revokes their tokens at the provider (where it has a revocation endpoint) and ends the sessions signed
    /// in with them; 204, or 302 to a valid `return_to`.
    ///
    /// Refused: another origin (`cross_origin_request`), no session (`not_signed_in`), no such identity
    /// (`not_linked`), or the user's last identity (`last_identity`: delete the account instead). The user and the
    /// removed identities are noted in `changes`.
    func disconnect(_ request: HTTPServerRequest, provider name: String, changes: SessionChangeLog)
        async throws(ServerError) -> HTTPServerResponse
    {
        _ = try providers.provider(name)
        let returnTo = try returnToPolicy.validate(try RequestParameters.returnToParameter(request))
        let session = try await requireSession(request)
        let accounts = stores.accounts
        let user = session.record.userID
        changes.noteChanged(user: user)
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
            changes.noteChanged(identity: identity.identity.key)
            if let tokens = identity.tokens { await revoker.revoke(tokens, provider: name) }
            _ = try? await stores.sessions.deleteSessions(identity: identity.identity.key)
            if identity.identity.key == session.record.identity { endedOwnSession = true }
        }
        logger.log(.info, "provider disconnected", metadata: ["provider": name])
        audit(
            AuditEvent(
                .identityUnlinked, userID: user, provider: name, actor: .user,
                details: ["identities": .integer(Int64(removed.count))]))
        var response: HTTPServerResponse = returnTo.map { .redirect(to: $0, status: 302) } ?? .empty(status: 204)
        if endedOwnSession { response.addCookie(cookies.clearedSessionCookie()) }
        return response
    }

    /// `POST /auth/account/delete`: deletes the signed-in user as ``SignInServer/deleteUser(_:)`` does; 204 (or 302 to a
    /// valid `return_to`).
    func deleteAccount(_ request: HTTPServerRequest, changes: SessionChangeLog) async throws(ServerError)
        -> HTTPServerResponse
    {
        let returnTo = try returnToPolicy.validate(try RequestParameters.returnToParameter(request))
        let session = try await requireSession(request)
        _ = try await deleteUser(session.record.userID, changes: changes)
        var response: HTTPServerResponse = returnTo.map { .redirect(to: $0, status: 302) } ?? .empty(status: 204)
        response.addCookie(cookies.clearedSessionCookie())
        return response
    }

}
