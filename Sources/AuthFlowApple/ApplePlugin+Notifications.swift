import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Sign in with Apple server-to-server notifications, through the plugin events seam.
struct AppleNotifications: ProviderEventHandling {
    /// `POST /auth/{name}/notifications`, bodies of at most 64 KiB.
    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] {
        [ProviderEventEndpoint(path: "notifications", method: "POST", errorCode: "invalid_notification")]
    }

    /// Verifies Apple's signed event and names its effects.
    ///
    /// Verification: `{"payload": JWS}`, RS256 over the provider's JWKS (the sign-in key cache), `iss` exact,
    /// `aud` one of the provider's client id, `audiences` and `native_clients`, `iat`/`exp` with leeway, a `jti`, and `events`
    /// holding one `{type, sub}` object. Effects, applied once per `jti`: `email-disabled`/`email-enabled`
    /// update the identity; `consent-revoked` deletes its stored tokens and ends the user's sessions;
    /// `account-delete` disables the identity, deletes its tokens, ends the user's sessions and revokes the
    /// refresh token at Apple. Answers 200 `{"applied": Bool, "reason"?}`: a replay, an unknown identity and
    /// an unknown event type are acknowledged unapplied.
    ///
    /// - Throws: `ProviderEventError` `invalid_notification` (400), `store_unavailable` (503).
    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext)
        async throws(ProviderEventError) -> ProviderEventOutcome
    {
        let notification = try await verifyNotification(request.http.body, context: context)
        guard let kind = notification.kind else {
            return .respond(Self.notificationAnswer(applied: false, reason: "unknown event type"), summary: "unknown")
        }
        let key = IdentityKey(provider: notification.provider, subject: notification.subject)
        guard try await context.identity(key) != nil else {
            return .respond(Self.notificationAnswer(applied: false, reason: "unknown identity"), summary: kind.rawValue)
        }
        var actions: [ProviderEventAction] = []
        switch kind {
        case .emailDisabled, .emailEnabled:
            actions.append(
                .account(
                    .updateProfile(
                        key,
                        IdentityProfileUpdate(
                            email: notification.email, emailVerified: notification.email == nil ? nil : true,
                            isPrivateEmail: notification.isPrivateEmail, emailDisabled: kind == .emailDisabled))))
        case .consentRevoked:
            actions = [.account(.deleteTokens(key)), .endUserSessions(key)]
        case .accountDelete:
            actions = [
                .revokeTokens(key), .account(.setDisabled(key, true)), .account(.deleteTokens(key)),
                .endUserSessions(key),
            ]
        }
        return ProviderEventOutcome(idempotencyKey: notification.id, actions: actions, summary: kind.rawValue) {
            disposition in
            switch disposition {
            case .applied: Self.notificationAnswer(applied: true, reason: nil)
            case .alreadyApplied: Self.notificationAnswer(applied: false, reason: "already applied")
            case .unknownIdentity, .nothingToApply: Self.notificationAnswer(applied: false, reason: "unknown identity")
            }
        }
    }

    static func notificationAnswer(applied: Bool, reason: String?) -> HTTPServerResponse {
        var object: [String: JSONValue] = ["applied": .bool(applied)]
        if let reason { object["reason"] = .string(reason) }
        var response = HTTPServerResponse.json(JSONValue.object(object).serialized())
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// Parses and verifies a notification body.
    ///
    /// - Throws: ``ProviderEventError`` `invalid_notification` (400).
    func verifyNotification(_ body: [UInt8], context: ProviderEventContext) async throws(ProviderEventError)
        -> AppleNotification
    {
        func invalid(_ message: String) -> ProviderEventError {
            ProviderEventError(code: "invalid_notification", message)
        }
        guard let json = try? JSONValue.parse(body), let payload = json["payload"]?.stringValue else {
            throw invalid("expected a JSON body {\"payload\": JWS}, found something else")
        }
        let provider = context.provider
        let claims: JWTClaims
        do throws(JOSEError) {
            // An app's notifications name its bundle id (`native_clients`), a website's its Services ID.
            let audiences = Set(provider.audiences + provider.nativeClients)
            claims = try await context.verify(
                payload, with: provider.jwtVerifier(leeway: context.leeway, audiences: audiences))
        } catch {
            throw invalid(
                "expected a notification signed by Apple with valid claims, found \(error.code): \(error.message)")
        }
        guard let jti = claims.string("jti"), !jti.isEmpty, jti.utf8.count <= 256 else {
            throw invalid("expected a 'jti' claim, found none")
        }
        let event: JSONValue
        switch claims["events"] {
        case .string(let text)?:
            guard text.utf8.count <= 16 * 1024, let parsed = try? JSONValue.parse(Array(text.utf8)) else {
                throw invalid("expected 'events' to hold a JSON object, found text that does not parse")
            }
            event = parsed
        case .object(let object)?:
            event = .object(object)
        default:
            throw invalid("expected an 'events' claim, found none")
        }
        guard let type = event["type"]?.stringValue, !type.isEmpty,
            let subject = event["sub"]?.stringValue, !subject.isEmpty, subject.utf8.count <= 255
        else {
            throw invalid("expected 'events' to name a type and a sub, found one missing")
        }
        let eventTime = event["event_time"]?.int64Value.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        return AppleNotification(
            provider: provider.name, id: jti, type: type, subject: subject, eventTime: eventTime,
            email: event["email"]?.stringValue, isPrivateEmail: IdentityClaims.flag(event["is_private_email"]))
    }
}
