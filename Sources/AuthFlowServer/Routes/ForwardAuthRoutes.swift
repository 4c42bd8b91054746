import AuthFlow
import AuthFlowHTTP

/// `GET /auth/forward` and `GET /auth/forward/RULES`: the check for Caddy's `forward_auth` and Traefik's
/// `forwardAuth` (docs/caddy.md, docs/traefik.md). Signed in: ``AuthCheck/answer(_:narrowing:)``, 202 with the
/// identity headers. Not signed in: a browser asking for a page (`Accept` with `text/html`, method `GET` or
/// `HEAD`) gets 302 to the sign-in with an absolute `Location` (Traefik resolves a relative one against this
/// server's own address); anyone else 401.
///
/// What a client chooses never weakens the check:
/// - The rules come from the path (`/auth/forward/group=admins&provider=google`), which the proxy's
///   configuration alone writes. The query is never read: Caddy copies the client's query onto the auth URI
///   when the configured one has none, so a rule read from it would be the client's. Each rule name at most
///   once (a comma list for alternatives), and the rules only narrow `server.access`, as on `/auth/check`.
/// - `X-Forwarded-Method`, `-Proto`, `-Host` and `-Uri` are believed from `server.trusted_proxies` only (and only
///   when sent once), and only choose where the browser returns after signing in (checked against
///   `server.allowed_return_to`) and whether it is sent to the sign-in: no path, method, header or user agent
///   lets a request pass without a session.
struct ForwardAuthRoutes: SessionUsing {
    let sessions: SessionService
    let authCheck: AuthCheck
    let options: SignInServer.Options
    let providers: ProviderDirectory
    let returnToPolicy: ReturnToPolicy
    let logger: any ServerLogger

    /// The headers a forward-auth proxy describes the original request with.
    static let forwardedHeaders = ["X-Forwarded-Method", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Uri"]

    /// The original request as a trusted proxy described it; every field `nil` when it was not described.
    struct OriginalRequest: Equatable {
        var method: String?
        var proto: String?
        var host: String?
        var uri: String?
    }

    /// The route's answer; `rules` is the path segment after `forward`, when there is one.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for rules that do not parse or name a rule twice,
    ///   `not_signed_in` (401) without a session when no sign-in redirect applies, `forbidden` (403) for a user
    ///   the rules refuse.
    func forward(_ request: HTTPServerRequest, rules: String?) async throws(ServerError) -> HTTPServerResponse {
        var narrowing: AccessRules?
        var stepUp: StepUpRequirement?
        if let rules {
            let place = "the path of /auth/forward"
            let split = try AuthCheck.stepUp(from: FormURLEncoding.decode(rules), in: place, repeatable: false)
            narrowing = try AuthCheck.rules(split.rules, in: place, repeatable: false)
            stepUp = split.stepUp
        }
        let original = original(of: request)
        guard let session = try await currentSession(request, cached: true) else {
            return try signInAnswer(request, original: original, narrowing: narrowing)
        }
        return try authCheck.answer(
            session, narrowing: narrowing, stepUp: stepUp, returnTo: stepUp == nil ? nil : returnTo(original),
            browser: Self.asksForPage(request, original: original))
    }

    /// Whether the original request is a browser asking for a page (`GET`/`HEAD` accepting `text/html`).
    static func asksForPage(_ request: HTTPServerRequest, original: OriginalRequest) -> Bool {
        let method = (original.method ?? request.method).uppercased()
        let accept = request.headers.values("Accept").joined(separator: ",").lowercased()
        return (method == "GET" || method == "HEAD") && accept.contains("text/html")
    }

    /// `GET /auth/check` asked by a trusted proxy that describes the original request (`X-Forwarded-Uri`, sent
    /// once): the rules from the query as `/auth/check` reads them, and without a session the answers of
    /// ``forward(_:rules:)`` (302 to the sign-in for a browser asking for a page, else 401). Any other
    /// `/auth/check` (nginx's `auth_request` among them) keeps its 401, which nginx needs.
    func check(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let (narrowing, stepUp) = try AuthCheck.checkQuery(request)
        let original = original(of: request)
        guard let session = try await currentSession(request, cached: true) else {
            return try signInAnswer(request, original: original, narrowing: narrowing)
        }
        return try authCheck.answer(
            session, narrowing: narrowing, stepUp: stepUp, returnTo: stepUp == nil ? nil : returnTo(original),
            browser: Self.asksForPage(request, original: original))
    }

    /// Whether `/auth/check` is asked by a trusted proxy describing the original request (``check(_:)``).
    static func describesOriginal(_ request: HTTPServerRequest) -> Bool {
        request.viaTrustedProxy && request.headers.values("X-Forwarded-Uri").count == 1
    }

    static let notSignedIn = ServerError(.notSignedIn, "expected a signed-in session, found none", status: 401)

    /// 302 to the sign-in for a browser asking for a page, when a provider to sign in with is known; else 401.
    func signInAnswer(_ request: HTTPServerRequest, original: OriginalRequest, narrowing: AccessRules?)
        throws(ServerError) -> HTTPServerResponse
    {
        let method = (original.method ?? request.method).uppercased()
        let accept = request.headers.values("Accept").joined(separator: ",").lowercased()
        guard method == "GET" || method == "HEAD", accept.contains("text/html"),
            let provider = signInProvider(narrowing)
        else { throw Self.notSignedIn }
        var location = options.publicURL + options.pathPrefix + "/" + provider + "/login"
        if let returnTo = returnTo(original) {
            location += "?" + FormURLEncoding.encode([("return_to", returnTo)])
        }
        return .redirect(to: location, status: 302)
    }

    /// The provider a browser signs in with: the one the rules, else `server.access`, else the configuration
    /// names, when exactly one is named; `nil` when that leaves a choice (the answer is then 401).
    func signInProvider(_ narrowing: AccessRules?) -> String? {
        for names in [narrowing?.providers ?? [], options.access.providers, providers.names] where !names.isEmpty {
            guard names.count == 1, providers[names[0]] != nil else { return nil }
            return names[0]
        }
        return nil
    }

    /// Where the browser returns after signing in: the original URL, as a path when it is on the public URL's
    /// origin (so `allowed_return_to: [/]` admits it), else absolute; without its query when only that makes it
    /// acceptable; `nil` when `server.allowed_return_to` admits neither (logged, the browser then returns to `/`).
    func returnTo(_ original: OriginalRequest) -> String? {
        guard let uri = original.uri, uri.hasPrefix("/"), let host = original.host,
            let proto = original.proto?.lowercased(), proto == "https" || proto == "http"
        else { return nil }
        let sameOrigin = ReturnToPolicy.origin(of: proto + "://" + host) == ReturnToPolicy.origin(of: options.publicURL)
        let base = sameOrigin ? "" : proto + "://" + host
        let path = uri.prefix { $0 != "?" && $0 != "#" }
        for candidate in [base + uri, base + path] {
            if let accepted = try? returnToPolicy.validate(candidate) { return accepted }
        }
        logger.log(
            .warning, "forward auth: the original URL is not under server.allowed_return_to; signing in returns to /",
            metadata: ["origin": sameOrigin ? "public_url" : "other"])
        return nil
    }

    /// The original request's description: read from a trusted proxy only, each header only when sent once.
    /// Such headers from another peer are ignored (the client learns nothing) and logged, by name only.
    func original(of request: HTTPServerRequest) -> OriginalRequest {
        let present = Self.forwardedHeaders.filter { !request.headers.values($0).isEmpty }
        guard request.viaTrustedProxy else {
            if !present.isEmpty {
                logger.log(
                    .warning, "forward auth: X-Forwarded-* from a peer that is not in server.trusted_proxies ignored",
                    metadata: ["headers": present.joined(separator: ",")])
            }
            return OriginalRequest()
        }
        func single(_ name: String) -> String? {
            let values = request.headers.values(name)
            return values.count == 1 ? values[0].trimmingCharacters() : nil
        }
        let repeated = present.filter { request.headers.values($0).count > 1 }
        if !repeated.isEmpty {
            logger.log(
                .warning, "forward auth: X-Forwarded-* sent more than once ignored",
                metadata: ["headers": repeated.joined(separator: ",")])
        }
        return OriginalRequest(
            method: single("X-Forwarded-Method"), proto: single("X-Forwarded-Proto"),
            host: single("X-Forwarded-Host"), uri: single("X-Forwarded-Uri"))
    }
}
