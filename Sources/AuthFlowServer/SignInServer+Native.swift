import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension SignInServer {
    /// The largest JSON body the native routes read (bytes).
    static let maximumNativeBodyBytes = 16 * 1024

    /// `POST /auth/{provider}/native/nonce`: 200 `{"nonce", "expires_at"}`, a fresh sealed nonce for the app to
    /// pass to its provider's SDK. Stateless: nothing is stored until a sign-in spends it. 404 when the provider
    /// has no `native_clients`; rate-limited like sign-in starts.
    func nativeNonce(_ request: HTTPServerRequest, provider name: String) async throws(ServerError)
        -> HTTPServerResponse
    {
        let native = try nativeSignIn(for: name)
        try await checkRateLimit(request, kind: .start)
        let issued: (nonce: String, expiresAt: Date)
        do throws(JOSEError) {
            issued = try native.nonces.issue(provider: name, now: clock.now())
        } catch {
            throw ServerError(
                .init(rawValue: "server_error"), "expected to seal a nonce, found \(error.code)", status: 500,
                provider: name)
        }
        return ResponseFactory.json(
            .object(["nonce": .string(issued.nonce), "expires_at": .string(Self.timestamp(issued.expiresAt))]))
    }

    /// `POST /auth/{provider}/native`: a native app's ID token (and Apple's code and first-login `user`) for a
    /// bearer session. JSON in, JSON out; no cookie is set. Verification is ``NativeSignIn``'s; the account is
    /// resolved as at a web callback (intent `login`, `register` or `link` with a session). Rate-limited like
    /// callbacks; 404 when the provider has no `native_clients`.
    func nativeSignIn(_ request: HTTPServerRequest, provider name: String) async throws(ServerError)
        -> HTTPServerResponse
    {
        let started = clock.now()
        let native = try nativeSignIn(for: name)
        try await checkRateLimit(request, kind: .callback)
        let body = try Self.nativeBody(request, provider: name)
        let outcome: NativeSignIn.Outcome
        do throws(SignInError) {
            outcome = try await native.verify(body, provider: name)
        } catch {
            logger.log(.warning, "native sign-in refused", metadata: ["provider": name, "code": error.code.rawValue])
            throw ServerError(error)
        }
        let result = outcome.result
        var tokens = StoredTokens(accessToken: nil, refreshToken: nil)
        if let exchanged = outcome.exchangedTokens {
            tokens = storedTokens(exchanged)
            tokens.clientID = outcome.tokenClientID
        }
        let firstLoginName = result.unverifiedProfile.map {
            UnverifiedProfile(
                provider: $0.provider,
                firstName: $0.firstName.map { Self.capped($0, bytes: Self.maximumNamePartBytes) },
                lastName: $0.lastName.map { Self.capped($0, bytes: Self.maximumNamePartBytes) })
        }
        // The account of this identity may change (its profile, a link), and with it the identity's sessions.
        noteChanged(identity: IdentityKey(provider: result.provider, subject: result.identity.subject))
        let identity: LinkedIdentity
        do throws(ServerError) {
            identity = try await resolveAccount(
                for: result, request: request, pendingName: firstLoginName?.displayName, tokens: tokens)
        } catch {
            logger.log(
                .warning, "native sign-in refused",
                metadata: ["provider": result.provider, "code": error.code.rawValue])
            throw error
        }
        let providerSessionID = result.identity.rawClaims["sid"]?.stringValue.flatMap {
            $0.isEmpty || $0.utf8.count > 255 ? nil : $0
        }
        noteChanged(user: identity.userID)
        let session = try await storeSession(
            for: identity, kind: .bearer, providerSessionID: providerSessionID,
            groups: sessionGroups(result.identity, provider: result.provider),
            agent: UserAgentSummary.summary(request.headers["User-Agent"]))
        logger.log(
            .info, "signed in",
            metadata: ["provider": result.provider, "intent": result.intent.rawValue, "session": "bearer"])
        countSignIn(provider: result.provider, intent: result.intent, started: started)
        return ResponseFactory.json(Self.bearerJSON(token: session.id, record: session.record, identity: identity))
    }

    /// `POST /auth/session/refresh`: with a bearer session, a new token for the same sign-in, for another
    /// `native_session_ttl`; the old token ends first, so of two refreshes with one token only one succeeds.
    /// 401 `not_bearer_session` with a cookie or no session.
    func refreshBearerSession(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        guard case .bearer = try sessionCredential(request) else {
            throw ServerError(
                .notBearerSession, "expected an Authorization bearer session token, found none", status: 401)
        }
        let current = try await requireSession(request)
        noteChanged(session: current.id)
        let ended: Bool
        do throws(StoreError) {
            ended = try await stores.sessions.deleteSession(id: current.id)
        } catch {
            throw ServerError(error, while: "end the old session", store: "sessions")
        }
        guard ended else {
            throw ServerError(.notSignedIn, "expected a signed-in session, found one that just ended", status: 401)
        }
        let session = try await storeSession(
            for: current.identity, kind: .bearer, providerSessionID: current.record.providerSessionID,
            groups: current.record.groups, agent: current.record.agent)
        logger.log(.info, "bearer session refreshed", metadata: ["provider": current.identity.provider])
        return ResponseFactory.json(
            Self.bearerJSON(token: session.id, record: session.record, identity: current.identity))
    }

    /// The native sign-in of provider `name`.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400) for an unknown provider, `not_found` (404) when it has
    ///   no `native_clients` (or `server.secret` cannot seal nonces).
    func nativeSignIn(for name: String) throws(ServerError) -> NativeSignIn {
        let provider = try provider(name)
        guard provider.acceptsNativeSignIn, let native else {
            throw ServerError(
                .init(rawValue: "not_found"),
                "expected a provider with native_clients, found '\(name)' without native sign-in", status: 404,
                provider: name)
        }
        return native
    }

    /// The body of `POST /auth/{provider}/native`: a JSON object with strings `id_token` and `nonce`, optional
    /// string `code`, `user` (an object or its JSON text) and `intent` (`login`, `register`, `link`).
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) saying what was expected and found.
    static func nativeBody(_ request: HTTPServerRequest, provider name: String) throws(ServerError)
        -> NativeSignIn.Request
    {
        func refuse(_ message: String) -> ServerError {
            ServerError(.invalidRequest, message, status: 400, provider: name)
        }
        guard request.body.count <= maximumNativeBodyBytes else {
            throw refuse("expected a JSON body of at most \(maximumNativeBodyBytes) bytes, found more")
        }
        guard let json = try? JSONValue.parse(request.body), let object = json.objectValue else {
            throw refuse("expected a JSON object body {\"id_token\", \"nonce\", ...}, found other bytes")
        }
        func string(_ key: String, required: Bool) throws(ServerError) -> String? {
            guard let value = object[key], value != .null else {
                if required { throw refuse("expected a string '\(key)', found none") }
                return nil
            }
            guard let text = value.stringValue, !text.isEmpty else {
                throw refuse("expected '\(key)' to be a non-empty string, found another value")
            }
            return text
        }
        let idToken = try string("id_token", required: true) ?? ""
        let nonce = try string("nonce", required: true) ?? ""
        let code = try string("code", required: false)
        var user: String?
        switch object["user"] {
        case nil, .null?: user = nil
        case .string(let text)?: user = text
        case let value? where value.objectValue != nil: user = String(decoding: value.serializedBytes(), as: UTF8.self)
        default: throw refuse("expected 'user' to be an object or its JSON text, found another value")
        }
        var intent = SignInIntent.login
        if let text = try string("intent", required: false) {
            guard let parsed = SignInIntent(rawValue: text) else {
                throw refuse("expected 'intent' to be login, register or link, found another value")
            }
            intent = parsed
        }
        return NativeSignIn.Request(idToken: idToken, nonce: nonce, code: code, user: user, intent: intent)
    }

    /// The answer of a native sign-in or a refresh.
    static func bearerJSON(token: String, record: SessionRecord, identity: LinkedIdentity) -> JSONValue {
        let email: JSONValue = identity.emailVerified ? identity.email.map(JSONValue.string) ?? .null : .null
        return .object([
            "session_token": .string(token),
            "token_type": .string("Bearer"),
            "expires_at": .string(timestamp(record.expiresAt)),
            "user_id": .string(record.userID.rawValue),
            "provider": .string(identity.provider),
            "subject": .string(identity.subject),
            "email": email,
            "email_verified": .bool(identity.emailVerified && identity.email != nil),
            "name": identity.name.map(JSONValue.string) ?? .null,
        ])
    }
}
