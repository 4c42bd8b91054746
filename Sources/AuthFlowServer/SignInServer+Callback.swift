import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension SignInServer {
    /// `GET|POST /auth/{provider}/callback`: completes the sign-in, resolves the account, starts a fresh
    /// session, clears the flow's cookie and redirects (302 after GET, 303 after POST) to `return_to` (default `/`).
    ///
    /// The flow record comes from the browser's flow cookie for the callback's state; the state is marked
    /// spent only once that cookie has opened and matched, so a callback with someone else's state and no (or
    /// a wrong) cookie changes nothing. A POST arriving cross-site (`Sec-Fetch-Site: cross-site`) or without a
    /// valid flow cookie, and not yet bounced, gets the ``BouncePage`` instead; nothing is spent until the
    /// re-POST. Rate-limited per client address (`server.rate_limits.callbacks`).
    func callback(_ request: HTTPServerRequest, provider name: String) async throws(ServerError) -> HTTPServerResponse {
        let started = clock.now()
        let provider = try provider(name)
        try await checkRateLimit(request, kind: .callback)
        let method: CallbackMethod = request.method == "POST" ? .post : .get
        var fields: [(String, String)]
        if method == .post {
            guard request.body.count <= BouncePage.maximumBytes else {
                throw ServerError(
                    .invalidRequest, "expected a callback body of at most \(BouncePage.maximumBytes) bytes, found more",
                    status: 400, provider: name)
            }
            do throws(HTTPServerError) {
                fields = try request.formFields()
            } catch {
                throw ServerError(.invalidRequest, error.message, status: 400, provider: name)
            }
        } else {
            fields = request.query
        }
        guard fields.count <= BouncePage.maximumFields else {
            throw ServerError(
                .invalidRequest,
                "expected at most \(BouncePage.maximumFields) callback parameters, found \(fields.count)",
                status: 400, provider: name)
        }
        let states = fields.filter { $0.0 == "state" }
        let state = states.count == 1 ? states[0].1 : ""
        let record = try flowCookie?.record(in: request, state: state, provider: name)
        let bounced = fields.contains { $0.0 == BouncePage.markerField }
        let crossSite = request.headers["Sec-Fetch-Site"]?.trimmingCharacters().lowercased() == "cross-site"
        if method == .post, !bounced, record == nil || crossSite {
            return bounce(provider: provider, fields: fields)
        }
        fields.removeAll { $0.0 == BouncePage.markerField }
        let parameters = CallbackParameters(fields)
        // Only a provider that sends its profile once (Apple) parks one; the others never touch that store.
        let keepsProfile = provider.plugin.keepsUnverifiedProfile
        let pendingKey = keepsProfile ? record.map { Self.pendingProfileKey(provider: name, state: $0.state) } : nil
        let startTrace = options.keepsTraces ? traces.takeStart(state: state) : []

        let result: SignInResult
        do throws(SignInError) {
            result = try await signIn.complete(
                provider: name, method: method, parameters: parameters, flowRecord: record
            ) { [stores, clock, options] profile in
                // Apple sends the name once: park it before the code exchange can fail, for no longer than the
                // flow lives, with each name part capped.
                guard keepsProfile else { return }
                guard let pendingKey, let record else {
                    throw ServerError(.invalidRequest, "no flow record", status: 400)
                }
                let expiry = min(
                    clock.now().addingTimeInterval(options.pendingProfileTTL),
                    record.createdAt.addingTimeInterval(options.flow.flowTTL))
                try await stores.accounts.putPendingProfile(
                    PendingProfile(
                        key: pendingKey, provider: name,
                        firstName: profile.firstName.map { Self.capped($0, bytes: Self.maximumNamePartBytes) },
                        lastName: profile.lastName.map { Self.capped($0, bytes: Self.maximumNamePartBytes) },
                        expiresAt: expiry))
            }
        } catch {
            logger.log(
                .warning, "sign-in refused", metadata: ["provider": name, "code": error.code.rawValue])
            var failure = ServerError(error)
            if error.code == .browserBindingMismatch, record == nil,
                flowCookie?.isPresent(in: request, state: state, provider: name) == true
            {
                // The browser did send this sign-in's flow cookie: say so, rather than "found none".
                failure = ServerError(
                    failure.code, FlowCookie.unopenedMessage, status: failure.status, provider: failure.provider)
            }
            failure.trace = startTrace + error.trace
            throw failure
        }

        let pending = await takePendingProfile(pendingKey)
        // The account of this identity may change (its profile, a link), and with it the identity's sessions.
        noteChanged(identity: IdentityKey(provider: result.provider, subject: result.identity.subject))
        let identity: LinkedIdentity
        do throws(ServerError) {
            identity = try await resolveAccount(
                for: result, request: request, pendingName: pending?.displayName, tokens: storedTokens(result.tokens))
        } catch {
            if let pending { await restorePendingProfile(pending) }
            logger.log(.warning, "sign-in refused", metadata: ["provider": name, "code": error.code.rawValue])
            throw error
        }

        // A fresh session id at every sign-in; the session this browser had before ends.
        noteChanged(user: identity.userID)
        if let old = try sessionCookieValue(request) {
            noteChanged(session: old)
            _ = try? await stores.sessions.deleteSession(id: old)
        }
        // The id_token's `sid` (OpenID Connect Front/Back-Channel Logout) ties the session to the provider's.
        let providerSessionID =
            result.identity.source == .idToken
            ? result.identity.rawClaims["sid"]?.stringValue.flatMap { $0.isEmpty || $0.utf8.count > 255 ? nil : $0 }
            : nil
        let session = try await createSession(
            for: identity, providerSessionID: providerSessionID,
            groups: sessionGroups(result.identity, provider: name),
            agent: UserAgentSummary.summary(request.headers["User-Agent"]))
        if options.keepsTraces {
            traces.rememberSession(digest: Self.digest(session.id), trace: startTrace + result.trace)
        }
        logger.log(.info, "signed in", metadata: ["provider": name, "intent": result.intent.rawValue])
        countSignIn(provider: name, intent: result.intent, started: started)
        var response = HTTPServerResponse.redirect(to: result.returnTo ?? "/", status: method == .post ? 303 : 302)
        // The flow is over and its state spent: the browser drops its flow cookie, so its later requests do not
        // carry it and its next sign-in start has no stale flow cookie to open and evict.
        if let record, let flowCookie {
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

    /// The re-POST page for a cross-site form_post callback.
    func bounce(provider: ResolvedProvider, fields: [(String, String)]) -> HTTPServerResponse {
        let action = "\(options.pathPrefix)/\(provider.name)/callback"
        let targets = returnToPolicy.origins.sorted()
        logger.log(.debug, "cross-site callback bounced to the app's origin", metadata: ["provider": provider.name])
        var response = ResponseFactory.html(
            BouncePage.page(action: action, fields: fields),
            csp: BouncePage.contentSecurityPolicy(formTargets: targets))
        // The re-POST carries the code and state: no Referer for it, and `Origin: null` is fine here (the
        // callback checks Sec-Fetch-Site and the flow cookie, not Origin).
        response.headers["Referrer-Policy"] = "no-referrer"
        return response
    }

    /// The most UTF-8 bytes kept of each part of a first-login name.
    static let maximumNamePartBytes = 200

    /// The pending-profile key of a flow: a digest, so the store never sees the state itself.
    static func pendingProfileKey(provider: String, state: String) -> String {
        "flow:" + Base64URL.encode(Digest.sha256(Array("authflow pending-profile \(provider) \(state)".utf8)))
    }

    /// `text` cut to at most `bytes` UTF-8 bytes, on a character boundary.
    static func capped(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= bytes else { break }
            result.append(character)
            used += size
        }
        return result
    }

    func takePendingProfile(_ key: String?) async -> PendingProfile? {
        guard let key else { return nil }
        do throws(StoreError) {
            return try await stores.accounts.takePendingProfile(key: key)
        } catch {
            logger.log(.warning, "pending profile unavailable", metadata: ["code": error.code.rawValue])
            return nil
        }
    }

    func restorePendingProfile(_ profile: PendingProfile) async {
        do throws(StoreError) {
            try await stores.accounts.putPendingProfile(profile)
        } catch {
            logger.log(.warning, "pending profile not restored", metadata: ["code": error.code.rawValue])
        }
    }

    /// The tokens of a sign-in as the account store keeps them (it encrypts them); a `nil` refresh token keeps
    /// the stored one.
    func storedTokens(_ tokens: TokenSet) -> StoredTokens {
        StoredTokens(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            accessTokenExpiresAt: tokens.expiresIn.map { clock.now().addingTimeInterval(Double($0)) },
            scope: tokens.scope)
    }
}
