import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// What OpenID Connect RP-Initiated Logout 1.0 needs beyond the local logout: the id_token kept for
/// `id_token_hint` and the `state` the provider hands back to `GET /auth/logged-out`.
///
/// Both are sealed with AES-256-GCM under a key derived from the server secrets (its own HKDF label):
/// - the **hint cookie** (`authflow_logout_hint`, `__Secure-` over https) holds the session's id_token, bound
///   to the session it was issued with (the digest of the session id is the associated data), sent only to
///   `{path_prefix}/logout`; a value over ``maximumHintCookieLength`` is not set (the logout then goes
///   without `id_token_hint`, with `client_id`).
/// - the **state** carries the provider, the validated `return_to` and an expiry of ``stateLifetime``; it is
///   accepted once, spent in the flow store (``FlowStore/markSpent(state:until:)``) shared by the instances.
struct ProviderLogout: Sendable {
    /// The HKDF info label of the key.
    static let label = "authflow provider logout v1"
    /// How long the provider may take to send the browser back to `GET /auth/logged-out`: 10 minutes.
    static let stateLifetime: Double = 600
    /// The longest `state` opened; anything longer is refused unread.
    static let maximumStateLength = 2048
    /// The longest hint cookie value set (browsers keep about 4 KiB per cookie).
    static let maximumHintCookieLength = 3600

    let cipher: TokenCipher
    let policy: CookiePolicy
    /// `server.path_prefix`, for the hint cookie's `Path`.
    let pathPrefix: String

    /// The hint cookie's name.
    var hintCookieName: String { policy.secure ? "__Secure-authflow_logout_hint" : "authflow_logout_hint" }

    /// `Set-Cookie` keeping `idToken` for the session `sessionID` during `maxAge` seconds; `nil` when the
    /// sealed value would be too large for a cookie.
    func hintCookie(idToken: String, sessionID: String, maxAge: Int) throws(JOSEError) -> String? {
        let sealed = try cipher.seal(Array(idToken.utf8), associatedData: Self.hintData(sessionID))
        let value = "v1." + Base64URL.encode(sealed)
        guard value.utf8.count <= Self.maximumHintCookieLength else { return nil }
        return attributes(value: value, maxAge: maxAge)
    }

    /// `Set-Cookie` removing the hint cookie.
    func clearedHintCookie() -> String { attributes(value: "", maxAge: 0) }

    /// The id_token the hint cookie of `request` keeps for the session `sessionID`; `nil` when there is none,
    /// more than one, or one that does not open for this session.
    func idToken(in request: HTTPServerRequest, sessionID: String) -> String? {
        let values = request.cookieValues(hintCookieName)
        guard values.count == 1, let value = values.first, value.utf8.count <= Self.maximumHintCookieLength,
            value.hasPrefix("v1."), let sealed = try? Base64URL.decode(value.dropFirst(3)),
            let plain = try? cipher.open(sealed, associatedData: Self.hintData(sessionID))
        else { return nil }
        return String(validating: plain, as: UTF8.self)
    }

    /// A `state` for a logout at `provider` that returns to `returnTo`, issued at `now`.
    func state(provider: String, returnTo: String, now: Date) throws(JOSEError) -> String {
        let expires = Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(Self.stateLifetime)
        let sealed = try cipher.seal(Array("\(expires) \(provider)\n\(returnTo)".utf8), associatedData: Self.stateData)
        return Base64URL.encode(sealed)
    }

    /// What a `state` says: the provider and the `return_to`, with what spending it needs.
    struct Opened: Sendable, Equatable {
        let provider: String
        let returnTo: String
        /// When the state stops opening: how long the flow store must remember it spent.
        let expiresAt: Date
        /// What the flow store spends (``FlowStore/markSpent(state:until:)``, which keeps only its digest): the
        /// sealed bytes in their one canonical encoding, under a prefix of their own, so that neither another
        /// spelling of one state nor a sign-in state can stand for it.
        let spentKey: String
    }

    /// Opens `state` at `now`.
    ///
    /// - Throws: ``ServerError`` `invalid_logout_state` (400) for a value not sealed here (altered, forged, from
    ///   a secret since dropped), `logout_state_expired` (400) for one older than ``stateLifetime``. Opening spends
    ///   nothing: the route spends ``Opened/spentKey``.
    func open(_ state: String, now: Date) throws(ServerError) -> Opened {
        let invalid = ServerError(
            .invalidLogoutState,
            "expected the state this server sent with the provider logout, found a value that does not open here "
                + "(altered, or sealed under a secret not in server.secret or server.previous_secrets)", status: 400)
        guard state.utf8.count <= Self.maximumStateLength, let sealed = try? Base64URL.decode(state),
            let plain = try? cipher.open(sealed, associatedData: Self.stateData),
            let text = String(validating: plain, as: UTF8.self), let newline = text.firstIndex(of: "\n")
        else { throw invalid }
        let head = text[..<newline].split(separator: " ", maxSplits: 1)
        guard head.count == 2, let expires = Int64(head[0]) else { throw invalid }
        guard now.timeIntervalSince1970 < Double(expires) else {
            throw ServerError(
                .logoutStateExpired,
                "expected the provider to send the browser back within \(Int(Self.stateLifetime)) s of the logout, "
                    + "found a state that expired", status: 400)
        }
        return Opened(
            provider: String(head[1]), returnTo: String(text[text.index(after: newline)...]),
            expiresAt: Date(timeIntervalSince1970: Double(expires)),
            spentKey: "logout-state " + Base64URL.encode(sealed))
    }

    /// The URL of `provider`'s end-session endpoint with the logout's parameters (RP-Initiated Logout §2):
    /// `id_token_hint` when kept, `client_id`, `post_logout_redirect_uri` and `state`.
    static func endSessionURL(
        _ endpoint: String, idToken: String?, clientID: String, postLogoutRedirectURI: String, state: String
    ) -> String {
        var fields: [(String, String)] = []
        if let idToken { fields.append(("id_token_hint", idToken)) }
        fields.append(("client_id", clientID))
        fields.append(("post_logout_redirect_uri", postLogoutRedirectURI))
        fields.append(("state", state))
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormURLEncoding.encode(fields)
    }

    private static let stateData = Array("logout state".utf8)

    private static func hintData(_ sessionID: String) -> [UInt8] {
        Array("id_token_hint\n".utf8) + Digest.sha256(Array(sessionID.utf8))
    }

    private func attributes(value: String, maxAge: Int) -> String {
        "\(hintCookieName)=\(value); Path=\(pathPrefix)/logout; Max-Age=\(maxAge); HttpOnly; SameSite=Lax"
            + (policy.secure ? "; Secure" : "")
    }
}

extension ErrorCode where Domain == ServerError {
    /// `GET /auth/logged-out` got a `state` this server did not seal (or sealed under a dropped secret).
    package static let invalidLogoutState = ServerError.Code(rawValue: "invalid_logout_state")
    /// `GET /auth/logged-out` got a `state` older than 10 minutes.
    package static let logoutStateExpired = ServerError.Code(rawValue: "logout_state_expired")
    /// `GET /auth/logged-out` got a `state` that already brought a browser back (on any instance sharing the flow
    /// store): each state is accepted once.
    package static let logoutStateUsed = ServerError.Code(rawValue: "logout_state_used")
}
