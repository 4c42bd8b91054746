import AuthFlow
import AuthFlowHTTP
import Foundation

extension CallbackRoutes {
    /// Completes the flow with the driver. Apple sends the name once: it is parked before the code exchange can
    /// fail, for no longer than the flow lives, with each name part capped. A refusal is logged and carries the
    /// start's trace.
    func complete(_ request: HTTPServerRequest, _ flow: Flow, parameters: CallbackParameters)
        async throws(ServerError) -> SignInResult
    {
        let name = flow.provider
        do throws(SignInError) {
            let result = try await signIn.complete(
                provider: name, method: flow.method, parameters: parameters, flowRecord: flow.record
            ) { [stores, clock, options] profile in
                guard flow.keepsProfile else { return }
                guard let pendingKey = flow.pendingKey, let record = flow.record else {
                    throw ServerError(.invalidRequest, "no flow record", status: 400)
                }
                let expiry = min(
                    clock.now().addingTimeInterval(options.pendingProfileTTL),
                    record.createdAt.addingTimeInterval(options.flow.flowTTL))
                try await stores.accounts.putPendingProfile(
                    PendingProfile(
                        key: pendingKey, provider: name,
                        firstName: profile.firstName.map {
                            PendingProfiles.capped($0, bytes: PendingProfiles.maximumNamePartBytes)
                        },
                        lastName: profile.lastName.map {
                            PendingProfiles.capped($0, bytes: PendingProfiles.maximumNamePartBytes)
                        },
                        expiresAt: expiry))
            }
            ActiveSpan.recordFlow(result.trace)
            return result
        } catch {
            ActiveSpan.recordFlow(error.trace)
            logger.log(.warning, "sign-in refused", metadata: ["provider": name, "code": error.code.rawValue])
            audit(AuditEvent(.signInRefused, outcome: .failure, code: error.code.rawValue, provider: name))
            var failure = ServerError(error)
            if error.code == .browserBindingMismatch, flow.record == nil,
                flowCookie?.isPresent(in: request, state: flow.state, provider: name) == true
            {
                // The browser did send this sign-in's flow cookie: say so, rather than "found none".
                failure = ServerError(
                    failure.code, ServerFlowCookies.unopenedMessage, status: failure.status, provider: failure.provider)
            }
            failure.trace = flow.startTrace + error.trace
            throw failure
        }
    }

    /// The account of the completed sign-in, named with the first-login name the flow parked (which goes back
    /// to the store when the resolution fails, for the next attempt). The browser's previous session ends in the
    /// account write's transaction where the stores allow (one durable commit per sign-in; `signedIn` then finds
    /// nothing left to delete). The identity is noted in `changes`.
    func resolve(_ result: SignInResult, request: HTTPServerRequest, flow: Flow, changes: SessionChangeLog)
        async throws(ServerError) -> LinkedIdentity
    {
        let pending = await pendingProfiles.take(flow.pendingKey)
        // The account of this identity may change (its profile, a link), and with it the identity's sessions.
        changes.noteChanged(identity: IdentityKey(provider: result.provider, subject: result.identity.subject))
        do throws(ServerError) {
            return try await accountResolution.resolveAccount(
                for: result, request: request, pendingName: pending?.displayName,
                tokens: StoredTokens(result.tokens, receivedAt: clock.now()),
                // A duplicated session cookie is refused in `signedIn`, as before; here it means no old session.
                endingSession: (try? sessionCookieValue(request)) ?? nil)
        } catch {
            if let pending { await pendingProfiles.restore(pending) }
            logger.log(
                .warning, "sign-in refused", metadata: ["provider": flow.provider, "code": error.code.rawValue])
            audit(AuditEvent(.signInRefused, outcome: .failure, code: error.code.rawValue, provider: flow.provider))
            throw error
        }
    }

    /// Starts the signed-in `identity`'s fresh session (the browser's earlier one ends) and answers with the
    /// redirect, the session cookie, the flow cookie cleared and, where the provider has an end-session
    /// endpoint, the id_token hint cookie for a later provider logout. The user and the earlier session are noted in
    /// `changes`.
    func signedIn(
        _ identity: LinkedIdentity, result: SignInResult, request: HTTPServerRequest, flow: Flow,
        changes: SessionChangeLog
    ) async throws(ServerError) -> HTTPServerResponse {
        let name = flow.provider
        changes.noteChanged(user: identity.userID)
        if let old = try sessionCookieValue(request) {
            changes.noteChanged(session: old)
            _ = try? await stores.sessions.deleteSession(id: old)
        }
        // The id_token's `sid` (OpenID Connect Front/Back-Channel Logout) ties the session to the provider's.
        let providerSessionID =
            result.identity.source == .idToken
            ? result.identity.rawClaims["sid"]?.stringValue.flatMap { $0.isEmpty || $0.utf8.count > 255 ? nil : $0 }
            : nil
        let session = try await createSession(
            for: identity, providerSessionID: providerSessionID,
            groups: membership.groups(of: result.identity, provider: name),
            roles: membership.roles(of: result.identity, provider: name),
            tenant: membership.tenant(of: result.identity),
            agent: UserAgentSummary.summary(request.headers["User-Agent"]),
            authentication: SessionAuthentication(of: result.identity))
        if options.keepsTraces {
            traces.rememberSession(digest: TraceLog.digest(session.id), trace: flow.startTrace + result.trace)
        }
        ActiveSpan.current?.event(
            "session.started", [SpanAttribute("authflow.intent", .string(result.intent.rawValue))])
        logger.log(.info, "signed in", metadata: ["provider": name, "intent": result.intent.rawValue])
        audit(.signedIn(identity.userID, provider: name, intent: result.intent.rawValue, session: "cookie"))
        requestLog.countSignIn(provider: name, intent: result.intent, started: flow.started)
        var response = HTTPServerResponse.redirect(
            to: result.returnTo ?? "/", status: flow.method == .post ? 303 : 302)
        // The flow is over and its state spent: the browser drops its flow cookie, so its later requests do not
        // carry it and its next sign-in start has no stale flow cookie to open and evict.
        if let record = flow.record, let flowCookie {
            response.addCookie(flowCookie.policy.clearedFlowCookie(name: flowCookie.name(of: record)))
        }
        response.addCookie(session.cookie)
        // The id_token for a later provider logout's `id_token_hint`, only where the provider has one.
        if let providerLogout, let idToken = result.tokens.idToken, providers[name]?.endpoints.endSession != nil,
            let cookie = try? providerLogout.hintCookie(
                idToken: idToken, sessionID: session.id, maxAge: Int(options.sessionTTL.rounded(.down)))
        {
            response.addCookie(cookie)
        }
        return response
    }

    /// The re-POST page for a cross-site form_post callback (the kit's `FormPostBounce`).
    func bounce(provider: ResolvedProvider, fields: [(String, String)]) -> HTTPServerResponse {
        logger.log(.debug, "cross-site callback bounced to the app's origin", metadata: ["provider": provider.name])
        // The re-POST carries the code and state: no Referer for it, and `Origin: null` is fine here (the
        // callback checks Sec-Fetch-Site and the flow cookie, not Origin).
        return FormPostBounce.response(
            action: "\(options.pathPrefix)/\(provider.name)/callback", fields: fields,
            formTargets: returnToPolicy.origins.sorted(), style: HTML.serverStyle)
    }
}
