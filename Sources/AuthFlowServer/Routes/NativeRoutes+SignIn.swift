import AuthFlow
import AuthFlowHTTP
import Foundation

extension NativeRoutes {
    /// `POST /auth/{provider}/native`: a native app's ID token (and Apple's code and first-login `user`) for a
    /// bearer session. JSON in, JSON out; no cookie is set. Verification is ``NativeSignIn``'s; the account is
    /// resolved as at a web callback (intent `login`, `register` or `link` with a session). Rate-limited like
    /// callbacks; 404 when the provider has no `native_clients`. What may change is noted in `changes`.
    func nativeSignIn(_ request: HTTPServerRequest, provider name: String, changes: SessionChangeLog)
        async throws(ServerError) -> HTTPServerResponse
    {
        let started = clock.now()
        let native = try nativeSignIn(for: name)
        try await rateLimiter.check(request, kind: .callback)
        let body = try Self.nativeBody(request, provider: name)
        let outcome: NativeSignIn.Outcome
        do throws(SignInError) {
            outcome = try await native.verify(body, provider: name)
        } catch {
            logger.log(.warning, "native sign-in refused", metadata: ["provider": name, "code": error.code.rawValue])
            audit(AuditEvent(.signInRefused, outcome: .failure, code: error.code.rawValue, provider: name))
            throw ServerError(error)
        }
        let result = outcome.result
        var tokens = StoredTokens(accessToken: nil, refreshToken: nil)
        if let exchanged = outcome.exchangedTokens {
            tokens = StoredTokens(exchanged, receivedAt: clock.now())
            tokens.clientID = outcome.tokenClientID
        }
        let firstLoginName = result.unverifiedProfile.map {
            UnverifiedProfile(
                provider: $0.provider,
                firstName: $0.firstName.map { PendingProfiles.capped($0, bytes: PendingProfiles.maximumNamePartBytes) },
                lastName: $0.lastName.map { PendingProfiles.capped($0, bytes: PendingProfiles.maximumNamePartBytes) })
        }
        // The account of this identity may change (its profile, a link), and with it the identity's sessions.
        changes.noteChanged(identity: IdentityKey(provider: result.provider, subject: result.identity.subject))
        let identity: LinkedIdentity
        do throws(ServerError) {
            identity = try await accountResolution.resolveAccount(
                for: result, request: request, pendingName: firstLoginName?.displayName, tokens: tokens,
                // The router let a cookie through here only from the server's own origin (`RouteTable`).
                cookieAuthority: .sameOriginCookie)
        } catch {
            logger.log(
                .warning, "native sign-in refused",
                metadata: ["provider": result.provider, "code": error.code.rawValue])
            audit(AuditEvent(.signInRefused, outcome: .failure, code: error.code.rawValue, provider: result.provider))
            throw error
        }
        let providerSessionID = result.identity.rawClaims["sid"]?.stringValue.flatMap {
            $0.isEmpty || $0.utf8.count > 255 ? nil : $0
        }
        changes.noteChanged(user: identity.userID)
        let session = try await sessions.issue(
            for: identity, kind: .bearer, providerSessionID: providerSessionID,
            groups: membership.groups(of: result.identity, provider: result.provider),
            roles: membership.roles(of: result.identity, provider: result.provider),
            tenant: membership.tenant(of: result.identity),
            agent: UserAgentSummary.summary(request.headers["User-Agent"]))
        logger.log(
            .info, "signed in",
            metadata: ["provider": result.provider, "intent": result.intent.rawValue, "session": "bearer"])
        audit(.signedIn(identity.userID, provider: result.provider, intent: result.intent.rawValue, session: "bearer"))
        requestLog.countSignIn(provider: result.provider, intent: result.intent, started: started)
        return ResponseFactory.json(
            Self.bearerJSON(token: session.id, record: session.record, identity: identity))
    }
}
