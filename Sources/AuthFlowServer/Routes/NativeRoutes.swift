import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// The native-app routes: `POST /auth/{provider}/native/nonce`, `POST /auth/{provider}/native`
/// (``nativeSignIn(_:provider:)``) and `POST /auth/session/refresh`.
struct NativeRoutes: SessionUsing {
    let sessions: SessionService
    let providers: ProviderDirectory
    let native: NativeSignIn?
    let clock: any WallClock
    let rateLimiter: RateLimiter
    let accountResolution: AccountResolution
    let membership: SessionMembership
    let requestLog: RequestLog
    let logger: any ServerLogger

    /// The largest JSON body the native routes read (bytes).
    static let maximumNativeBodyBytes = 16 * 1024

    /// `POST /auth/{provider}/native/nonce`: 200 `{"nonce", "expires_at"}`, a fresh sealed nonce for the app to
    /// pass to its provider's SDK. Stateless: nothing is stored until a sign-in spends it. 404 when the provider
    /// has no `native_clients`; rate-limited like sign-in starts.
    func nonce(_ request: HTTPServerRequest, provider name: String) async throws(ServerError) -> HTTPServerResponse {
        let native = try nativeSignIn(for: name)
        try await rateLimiter.check(request, kind: .start)
        let issued: (nonce: String, expiresAt: Date)
        do throws(JOSEError) {
            issued = try native.nonces.issue(provider: name, now: clock.now())
        } catch {
            throw ServerError(
                .serverError, "expected to seal a nonce, found \(error.code)", status: 500, provider: name)
        }
        return ResponseFactory.json(
            .object([
                "nonce": .string(issued.nonce), "expires_at": .string(RequestParameters.timestamp(issued.expiresAt)),
            ]))
    }

    /// `POST /auth/session/refresh`: with a bearer session, a new token of the same refresh chain, for another
    /// `native_session_ttl` but never past `native_session_max_age` from the sign-in; the old token ends first, so
    /// of two refreshes with one token only one succeeds, and presented again it ends the chain
    /// (``SessionService/refresh(_:changes:)``). 401 `not_bearer_session` with a cookie or no session, `session_expired` at
    /// the chain's end.
    func refresh(_ request: HTTPServerRequest, changes: SessionChangeLog) async throws(ServerError)
        -> HTTPServerResponse
    {
        guard case .bearer = try sessions.credential(request) else {
            throw ServerError(
                .notBearerSession, "expected an Authorization bearer session token, found none", status: 401)
        }
        let current = try await requireSession(request)
        let session = try await sessions.refresh(current, changes: changes)
        logger.log(.info, "bearer session refreshed", metadata: ["provider": current.identity.provider])
        return ResponseFactory.json(
            Self.bearerJSON(token: session.id, record: session.record, identity: current.identity))
    }

    /// The native sign-in of provider `name`.
    ///
    /// - Throws: ``ServerError`` `unknown_provider` (400) for an unknown provider, `not_found` (404) when it has
    ///   no `native_clients` (or `server.secret` cannot seal nonces).
    func nativeSignIn(for name: String) throws(ServerError) -> NativeSignIn {
        let provider = try providers.provider(name)
        guard provider.acceptsNativeSignIn, let native else {
            throw ServerError(
                .notFound, "expected a provider with native_clients, found '\(name)' without native sign-in",
                status: 404, provider: name)
        }
        return native
    }

    /// The answer of a native sign-in or a refresh.
    static func bearerJSON(token: String, record: SessionRecord, identity: LinkedIdentity) -> JSONValue {
        let email: JSONValue = identity.emailVerified ? identity.email.map(JSONValue.string) ?? .null : .null
        return .object([
            "session_token": .string(token),
            "token_type": .string("Bearer"),
            "expires_at": .string(RequestParameters.timestamp(record.expiresAt)),
            "user_id": .string(record.userID.rawValue),
            "provider": .string(identity.provider),
            "subject": .string(identity.subject),
            "email": email,
            "email_verified": .bool(identity.emailVerified && identity.email != nil),
            "name": identity.name.map(JSONValue.string) ?? .null,
        ])
    }
}
