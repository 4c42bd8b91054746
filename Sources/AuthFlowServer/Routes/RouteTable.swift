import AuthFlow
import AuthFlowHTTP

/// Every route of the sign-in server, by name. The router matches a path to one of these, the table
/// (``RouteTable/rule(for:)``, an exhaustive switch) says what may authorise it and what it accepts, and the
/// router enforces that before any handler runs: a route added without a decision does not compile.
enum RouteName: String, CaseIterable, Sendable {
    case health, session, check, forward, logout, loggedOut, sessions, sessionRefresh, sessionsRevoke, accountDelete
    case login, register, link, callback, disconnect, native, nativeNonce, providerEvent
    /// The routes of a passkey provider (`type: passkey`), in place of its OAuth ones.
    case passkeyRegisterOptions, passkeyRegister, passkeyAuthenticateOptions, passkeyAuthenticate
    case passkeyCredentials, passkeyCredentialsRename, passkeyCredentialsDelete

    /// Whether this is a route of a passkey provider.
    var isPasskeyRoute: Bool { rawValue.hasPrefix("passkey") }
}

/// What may authorise a route, what it changes, the body it accepts and how it is defended against a
/// request another site makes a browser send (see `docs/threat-model.md`, "Routes and credentials").
struct RouteRule: Sendable, Equatable {
    /// A credential that authorises a route.
    enum Credential: Sendable, Hashable {
        /// The session cookie, which a browser sends by itself (an ambient credential).
        case cookie
        /// `Authorization: Bearer`, which only code that holds the token can send.
        case bearer
    }

    /// The body a route reads.
    enum Body: Sendable, Equatable {
        /// None: a body sent is not read (and is capped by the route's body policy).
        case none
        /// `application/x-www-form-urlencoded`, or no body; any other non-empty body is refused (415).
        case form
        /// `application/json` (or `+json`), empty or not; any other media type is refused (415).
        case json
        /// What the provider plugin's event endpoint declares; the plugin verifies it.
        case providerDeclared
    }

    /// How a state-changing request from another site is refused.
    enum CrossSiteDefence: Sendable, Equatable {
        /// Nothing to defend: the route changes nothing a cross-site request could abuse.
        case notNeeded
        /// A request without a bearer token must come from the server's own origin (``OriginCheck``).
        case sameOrigin
        /// Only a bearer token authorises it, which no other site can make a browser send.
        case bearerOnly
        /// The sign-in's `state` is sealed in this browser's flow cookie (login CSRF protection).
        case browserBinding
        /// The state it carries was sealed by this server and is spent once.
        case sealedState
        /// The provider signs the request; its plugin verifies the signature.
        case providerSignature
    }

    /// The methods the route answers (`HEAD` is read as `GET`).
    let methods: [String]
    /// The credentials that may authorise it; empty when it needs none.
    let credentials: Set<Credential>
    /// Whether it may change server state (sessions, accounts, spent states).
    let changesState: Bool
    let body: Body
    let crossSite: CrossSiteDefence
}

/// The route table of ``SignInServer``: path to ``RouteName``, and each name's ``RouteRule``.
enum RouteTable {
    /// The rule of `route`.
    static func rule(for route: RouteName) -> RouteRule {
        let signedIn: Set<RouteRule.Credential> = [.cookie, .bearer]
        switch route {
        case .health:
            return RouteRule(methods: ["GET"], credentials: [], changesState: false, body: .none, crossSite: .notNeeded)
        case .session, .check, .forward, .sessions:
            return RouteRule(
                methods: ["GET"], credentials: signedIn, changesState: false, body: .none, crossSite: .notNeeded)
        case .logout, .accountDelete, .disconnect:
            return RouteRule(
                methods: ["POST"], credentials: signedIn, changesState: true, body: .form, crossSite: .sameOrigin)
        case .sessionsRevoke:
            return RouteRule(
                methods: ["POST"], credentials: signedIn, changesState: true, body: .json, crossSite: .sameOrigin)
        case .sessionRefresh:
            return RouteRule(
                methods: ["POST"], credentials: [.bearer], changesState: true, body: .none, crossSite: .bearerOnly)
        case .loggedOut:
            return RouteRule(
                methods: ["GET"], credentials: [], changesState: true, body: .none, crossSite: .sealedState)
        case .login, .register:
            return RouteRule(
                methods: ["GET"], credentials: [], changesState: false, body: .none, crossSite: .browserBinding)
        case .link:
            // The session that the link joins is read at the callback, where the flow cookie binds it.
            return RouteRule(
                methods: ["GET"], credentials: [.cookie], changesState: false, body: .none,
                crossSite: .browserBinding)
        case .callback:
            return RouteRule(
                methods: ["GET", "POST"], credentials: [.cookie], changesState: true, body: .form,
                crossSite: .browserBinding)
        case .native:
            // A login or register needs no credential; a link is authorised by the session it joins.
            return RouteRule(
                methods: ["POST"], credentials: signedIn, changesState: true, body: .json, crossSite: .sameOrigin)
        case .nativeNonce:
            return RouteRule(
                methods: ["POST"], credentials: [], changesState: false, body: .none, crossSite: .notNeeded)
        case .providerEvent:
            return RouteRule(
                methods: [], credentials: [], changesState: true, body: .providerDeclared,
                crossSite: .providerSignature)
        case .passkeyRegisterOptions, .passkeyRegister, .passkeyAuthenticateOptions, .passkeyAuthenticate,
            .passkeyCredentials, .passkeyCredentialsRename, .passkeyCredentialsDelete:
            return passkeyRule(for: route)
        }
    }

    /// The rules of the passkey routes: JSON in, same-origin for browsers; a registration joins the signed-in
    /// user when there is one, and the credential list and its changes need a session.
    static func passkeyRule(for route: RouteName) -> RouteRule {
        let signedIn: Set<RouteRule.Credential> = [.cookie, .bearer]
        switch route {
        case .passkeyRegisterOptions:
            return RouteRule(
                methods: ["POST"], credentials: signedIn, changesState: false, body: .json, crossSite: .sameOrigin)
        case .passkeyAuthenticateOptions:
            return RouteRule(
                methods: ["POST"], credentials: [], changesState: false, body: .json, crossSite: .sameOrigin)
        case .passkeyCredentials:
            return RouteRule(
                methods: ["GET"], credentials: signedIn, changesState: false, body: .none, crossSite: .notNeeded)
        default:
            // register and authenticate (a sealed single-use ceremony, and same-origin), rename and delete; the
            // caller passes passkey routes only.
            return RouteRule(
                methods: ["POST"], credentials: signedIn, changesState: true, body: .json, crossSite: .sameOrigin)
        }
    }

    /// The passkey route at routed `segments` under a passkey provider (`auth/{name}/…`), or `nil`.
    static func passkeyRoute(_ segments: [String]) -> RouteName? {
        switch (segments.count, segments.count >= 3 ? segments[2] : "", segments.count >= 4 ? segments[3] : "") {
        case (3, "register", _): .passkeyRegister
        case (4, "register", "options"): .passkeyRegisterOptions
        case (3, "authenticate", _): .passkeyAuthenticate
        case (4, "authenticate", "options"): .passkeyAuthenticateOptions
        case (3, "credentials", _): .passkeyCredentials
        case (4, "credentials", "rename"): .passkeyCredentialsRename
        case (4, "credentials", "delete"): .passkeyCredentialsDelete
        default: nil
        }
    }

    /// The route at routed `segments` (``RoutePrefix/routed(_:)``), or `nil` for none. Paths of three or more
    /// segments under `auth/{name}/` that name no built-in route are ``RouteName/providerEvent``: whether the
    /// provider's plugin declares such an endpoint is asked when the route runs. The server's own routes come
    /// first, so a provider's routes never shadow them.
    static func match(_ segments: [String]) -> RouteName? {
        let count = segments.count
        if count == 1 { return segments[0] == "healthz" ? .health : nil }
        guard count >= 2, segments[0] == RoutePrefix.routed else { return nil }
        switch (count, segments[1], count >= 3 ? segments[2] : "") {
        case (2, "session", _): return .session
        case (2, "check", _): return .check
        case (2, "forward", _): return .forward
        // The rules of a forward check ride in its path; no provider route's third segment holds a `=`.
        case (3, "forward", let rules) where rules.utf8.contains(UInt8(ascii: "=")): return .forward
        case (2, "logout", _): return .logout
        case (2, "logged-out", _): return .loggedOut
        case (2, "sessions", _): return .sessions
        case (3, "session", "refresh"): return .sessionRefresh
        case (3, "sessions", "revoke"): return .sessionsRevoke
        case (3, "account", "delete"): return .accountDelete
        case (3, _, "login"): return .login
        case (3, _, "register"): return .register
        case (3, _, "link"): return .link
        case (3, _, "callback"): return .callback
        case (3, _, "disconnect"): return .disconnect
        case (3, _, "native"): return .native
        case (4, _, "native") where segments[3] == "nonce": return .nativeNonce
        case (2, _, _): return nil
        default: return .providerEvent
        }
    }
}
