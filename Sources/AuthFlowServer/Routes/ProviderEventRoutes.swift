import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// The event endpoints provider plugins declare under `/auth/{provider}/` (Apple's notifications, Facebook's
/// data deletion, Google RISC, OIDC back-channel logout): matched, verified by the plugin, applied once.
struct ProviderEventRoutes: SessionUsing {
    let sessions: SessionService
    let stores: SignInServer.Stores
    let providers: ProviderDirectory
    let options: SignInServer.Options
    let keySets: ProviderKeySets
    let clock: any WallClock
    let revoker: TokenRevoker
    let requestLog: RequestLog
    let logger: any ServerLogger

    /// The event endpoint of provider `name` matching `segments` (the path after `/auth/{name}/`), when its
    /// plugin declares one; `nil` when none matches the path.
    ///
    /// - Throws: ``ServerError`` `method_not_allowed` (405) when the path matches under another method.
    func eventEndpoint(provider name: String, segments: [String], method: String) throws(ServerError) -> (
        ResolvedProvider, ProviderEventEndpoint, [String]
    )? {
        guard let provider = providers[name] else { return nil }
        var allowed: [String] = []
        for endpoint in provider.plugin.declaredEventEndpoints(for: provider) {
            guard let parameters = endpoint.match(segments) else { continue }
            if endpoint.method == method { return (provider, endpoint, parameters) }
            allowed.append(endpoint.method)
        }
        guard allowed.isEmpty else {
            throw ServerError(
                .methodNotAllowed,
                "expected \(allowed.joined(separator: " or ")), found \(method.prefix(16))", status: 405)
        }
        return nil
    }

    /// A provider event endpoint (`/auth/{name}/…`, declared by the provider's plugin): the body is capped,
    /// the plugin verifies the request and names its actions, and the account changes are applied in one
    /// store transaction once per idempotency key. Sessions end just before that transaction (only for an event
    /// not applied yet, and a session store failure answers 503 so that the provider retries), tokens are revoked
    /// only when it applied; so a replay changes nothing. The identities and users it acts on are noted in `changes`.
    ///
    /// - Throws: ``ServerError`` with the plugin's code (400 for a refused event), `store_unavailable` (503).
    func providerEvent(
        _ request: HTTPServerRequest, provider: ResolvedProvider, endpoint: ProviderEventEndpoint,
        parameters: [String], changes: SessionChangeLog
    ) async throws(ServerError) -> HTTPServerResponse {
        let limit = min(endpoint.maximumBodyBytes, options.maximumNotificationBytes)
        guard request.body.count <= limit else {
            throw ServerError(
                .init(rawValue: endpoint.errorCode),
                "expected a body of at most \(limit) bytes, found \(request.body.count)", status: 400)
        }
        let context = ProviderEventContext(
            provider: provider, keySets: keySets, accounts: stores.accounts, clock: clock, leeway: options.flow.leeway,
            publicURL: options.publicURL, pathPrefix: options.pathPrefix)
        let outcome: ProviderEventOutcome
        do throws(ProviderEventError) {
            outcome = try await provider.plugin.handleDeclaredEvent(
                ProviderEventRequest(endpoint: endpoint, pathParameters: parameters, http: request), context: context)
        } catch {
            logger.log(
                error.status >= 500 ? .error : .warning, "provider event refused",
                metadata: ["provider": provider.name, "code": error.code])
            requestLog.countNotification(provider: provider.name, type: "invalid", applied: false)
            if let response = error.response { return response }
            throw ServerError(.init(rawValue: error.code), error.message, status: error.status)
        }
        // A provider's events act on that provider's identities only.
        for action in outcome.actions where action.identity.provider != provider.name {
            logger.log(
                .error, "provider event names another provider's identity", metadata: ["provider": provider.name])
            throw ServerError(
                .invalidEventOutcome,
                "expected the plugin's actions to name identities of provider '\(provider.name)', found another",
                status: 500)
        }
        for action in outcome.actions { changes.noteChanged(identity: action.identity) }
        let disposition = try await apply(outcome, provider: provider.name, changes: changes)
        requestLog.countNotification(
            provider: provider.name, type: Self.eventTypeLabel(outcome.summary), applied: disposition == .applied)
        if disposition == .applied {
            audit(
                AuditEvent(
                    .providerEventApplied, provider: provider.name, actor: .provider,
                    details: ["event_type": .string(Self.eventTypeLabel(outcome.summary))]))
        }
        logger.log(
            .info, "provider event \(disposition.rawValue)",
            metadata: ["provider": provider.name, "event": String(outcome.summary.prefix(64))])
        return Self.framed(outcome.respond(disposition), endpoint: endpoint, issuer: provider.issuer)
    }

    /// The plugin's answer with the server's framing policy: an endpoint framable by the issuer
    /// (front-channel logout) gets `frame-ancestors` naming the issuer's origin alone, so
    /// ``ResponseFactory/secure(_:)`` adds no `X-Frame-Options`; any other keeps none but `'none'`.
    static func framed(_ response: HTTPServerResponse, endpoint: ProviderEventEndpoint, issuer: String?)
        -> HTTPServerResponse
    {
        var response = response
        if endpoint.framableByIssuer, let origin = issuer.flatMap(ResponseFactory.origin(of:)) {
            response.headers["Content-Security-Policy"] =
                "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
                + "frame-ancestors \(origin)"
            response.headers["X-Frame-Options"] = nil
            response.headers["Cache-Control"] = "no-store"
        } else if ResponseFactory.allowsFraming(response) {
            response.headers["Content-Security-Policy"] = "default-src 'none'; frame-ancestors 'none'"
        }
        return response
    }

    /// The `type` label of a provider event: the plugin's summary (an event type such as `consent-revoked`) when
    /// it is a short lower-case token list, `other` otherwise, so label values stay few and never carry data.
    static func eventTypeLabel(_ summary: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.,".utf8)
        guard !summary.isEmpty, summary.utf8.count <= 64, summary.utf8.allSatisfy(allowed.contains) else {
            return "other"
        }
        return summary
    }
}
