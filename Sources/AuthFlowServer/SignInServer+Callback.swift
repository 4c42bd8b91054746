import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension SignInServer {
    /// `GET|POST /auth/{provider}/callback`: completes the sign-in, resolves the account, starts a fresh
    /// session and redirects (302 after GET, 303 after POST) to `return_to` (default `/`).
    ///
    /// A POST arriving cross-site (`Sec-Fetch-Site: cross-site`) or without a valid flow cookie, and not yet
    /// bounced, gets the ``BouncePage`` instead; nothing is consumed until the re-POST.
    func callback(_ request: HTTPServerRequest, provider name: String) async throws(ServerError) -> HTTPServerResponse {
        let provider = try provider(name)
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
        let binding = flowCookie.open(request.cookies()[cookies.flowCookieName])
        let bounced = fields.contains { $0.0 == BouncePage.markerField }
        let crossSite = request.headers["Sec-Fetch-Site"]?.trimmingCharacters().lowercased() == "cross-site"
        if method == .post, !bounced, binding == nil || crossSite {
            return bounce(provider: provider, fields: fields)
        }
        fields.removeAll { $0.0 == BouncePage.markerField }
        let parameters = CallbackParameters(fields)
        let state = parameters.value("state") ?? ""
        let pendingKey = binding.map { Self.pendingProfileKey(provider: name, binding: $0) }
        let startTrace = options.keepsTraces ? traces.takeStart(state: state) : []

        let result: SignInResult
        do throws(SignInError) {
            result = try await signIn.complete(
                provider: name, method: method, parameters: parameters, browserBinding: binding
            ) { [stores, clock, options] profile in
                // Apple sends the name once: park it before the code exchange can fail.
                guard let pendingKey else { throw ServerError(.invalidRequest, "no browser binding", status: 400) }
                _ = try await stores.accounts.takePendingProfile(key: pendingKey)
                try await stores.accounts.putPendingProfile(
                    PendingProfile(
                        key: pendingKey, provider: name, firstName: profile.firstName, lastName: profile.lastName,
                        expiresAt: clock.now().addingTimeInterval(options.pendingProfileTTL)))
            }
        } catch {
            logger.log(
                .warning, "sign-in refused", metadata: ["provider": name, "code": error.code.rawValue])
            var failure = ServerError(error)
            failure.trace = startTrace + error.trace
            throw failure
        }

        let pending = await takePendingProfile(pendingKey)
        let identity: LinkedIdentity
        do throws(ServerError) {
            identity = try await resolveAccount(for: result, request: request, pendingName: pending?.displayName)
            try await saveTokens(result.tokens, for: identity.key)
        } catch {
            if let pending { await restorePendingProfile(pending) }
            logger.log(.warning, "sign-in refused", metadata: ["provider": name, "code": error.code.rawValue])
            throw error
        }

        // A fresh session id at every sign-in; the session this browser had before ends.
        if let old = request.cookies()[cookies.sessionCookieName], !old.isEmpty, old.utf8.count <= 128 {
            _ = try? await stores.sessions.deleteSession(id: old)
        }
        // The id_token's `sid` (OpenID Connect Front/Back-Channel Logout) ties the session to the provider's.
        let providerSessionID =
            result.identity.source == .idToken
            ? result.identity.rawClaims["sid"]?.stringValue.flatMap { $0.isEmpty || $0.utf8.count > 255 ? nil : $0 }
            : nil
        let session = try await createSession(for: identity, providerSessionID: providerSessionID)
        if options.keepsTraces {
            traces.rememberSession(digest: Self.digest(session.id), trace: startTrace + result.trace)
        }
        logger.log(.info, "signed in", metadata: ["provider": name, "intent": result.intent.rawValue])
        var response = HTTPServerResponse.redirect(to: result.returnTo ?? "/", status: method == .post ? 303 : 302)
        response.addCookie(session.cookie)
        return response
    }

    /// The re-POST page for a cross-site form_post callback.
    func bounce(provider: ResolvedProvider, fields: [(String, String)]) -> HTTPServerResponse {
        let action = "/auth/\(provider.name)/callback"
        let targets = returnToPolicy.origins.sorted()
        logger.log(.debug, "cross-site callback bounced to the app's origin", metadata: ["provider": provider.name])
        return ResponseFactory.html(
            BouncePage.page(action: action, fields: fields),
            csp: BouncePage.contentSecurityPolicy(formTargets: targets))
    }

    /// The pending-profile key of a browser binding: a digest, so the store never sees the binding itself.
    /// Keyed by the browser rather than the state, a retry from the same browser after a failed exchange still
    /// finds the name Apple sent only once.
    static func pendingProfileKey(provider: String, binding: String) -> String {
        "binding:" + Base64URL.encode(Digest.sha256(Array("authflow pending-profile \(provider) \(binding)".utf8)))
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

    /// Saves the tokens of a sign-in (the store encrypts them); a `nil` refresh token keeps the stored one.
    func saveTokens(_ tokens: TokenSet, for key: IdentityKey) async throws(ServerError) {
        let stored = StoredTokens(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            accessTokenExpiresAt: tokens.expiresIn.map { clock.now().addingTimeInterval(Double($0)) },
            scope: tokens.scope)
        do throws(StoreError) {
            try await stores.accounts.saveTokens(stored, for: key)
        } catch {
            throw ServerError(error, while: "save the provider tokens")
        }
    }
}
