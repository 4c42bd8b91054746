import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

extension SignInServer {
    /// `POST /auth/apple/notifications`: verifies Apple's signed event and applies it exactly once.
    ///
    /// Verification: body within ``Options/maximumNotificationBytes``, `{"payload": JWS}`, the Apple
    /// provider chosen by the token's `aud` (its `client_id` or `audiences`, not the URL), RS256 over that
    /// provider's JWKS, `iss` exact, `aud`, `iat`/`exp` with leeway, a `jti`, and `events` holding one
    /// `{type, sub}` object. Effects, applied once per `jti` in one store transaction:
    /// `email-disabled`/`email-enabled` update the identity; `consent-revoked` deletes its stored tokens and
    /// ends the user's sessions; `account-delete` disables the identity, deletes its tokens, ends the user's
    /// sessions and revokes the refresh token at Apple. A replay answers 200 and changes nothing; an event for
    /// an unknown identity or of an unknown type answers 200 unapplied.
    ///
    /// - Throws: ``ServerError`` `invalid_notification` (400), `store_unavailable` (503).
    func appleNotification(_ request: HTTPServerRequest) async throws(ServerError) -> HTTPServerResponse {
        let notification = try await verifyAppleNotification(request)
        guard let kind = notification.kind else {
            logger.log(
                .info, "apple notification of an unknown type ignored",
                metadata: ["type": String(notification.type.prefix(32))])
            countNotification(provider: notification.provider, type: "unknown", applied: false)
            return Self.notificationAnswer(applied: false, reason: "unknown event type")
        }
        let key = IdentityKey(provider: notification.provider, subject: notification.subject)
        let accounts = stores.accounts
        guard
            let identity = try await storing(
                "look up the identity",
                { () async throws(StoreError) in
                    try await accounts.identity(key)
                })
        else {
            countNotification(provider: notification.provider, type: kind.rawValue, applied: false)
            return Self.notificationAnswer(applied: false, reason: "unknown identity")
        }
        var changes: [AccountChange] = []
        var tokensToRevoke: StoredTokens?
        switch kind {
        case .emailDisabled, .emailEnabled:
            changes.append(
                .updateProfile(
                    key,
                    IdentityProfileUpdate(
                        email: notification.email, emailVerified: notification.email == nil ? nil : true,
                        isPrivateEmail: notification.isPrivateEmail, emailDisabled: kind == .emailDisabled)))
        case .consentRevoked:
            changes.append(.deleteTokens(key))
        case .accountDelete:
            tokensToRevoke = try await storing("read the identity's tokens") { () async throws(StoreError) in
                try await accounts.tokens(for: key)
            }
            changes.append(.setDisabled(key, true))
            changes.append(.deleteTokens(key))
        }
        let applied: Bool
        do throws(StoreError) {
            applied = try await accounts.applyNotification(id: "apple:\(notification.id)", changes: changes)
        } catch {
            if error.code == .identityNotFound {
                countNotification(provider: notification.provider, type: kind.rawValue, applied: false)
                return Self.notificationAnswer(applied: false, reason: "unknown identity")
            }
            throw ServerError(error, while: "apply the notification", store: "accounts")
        }
        guard applied else {
            logger.log(.info, "apple notification replayed", metadata: ["type": kind.rawValue])
            countNotification(provider: notification.provider, type: kind.rawValue, applied: false)
            return Self.notificationAnswer(applied: false, reason: "already applied")
        }
        if kind == .consentRevoked || kind == .accountDelete {
            // Session lookups also refuse a disabled identity, so a failure here cannot keep a session alive
            // after account-delete; consent-revoked sessions end here.
            let sessions = stores.sessions
            let user = identity.userID
            _ = try? await sessions.deleteSessions(userID: user)
        }
        if let tokensToRevoke { await revoke(tokensToRevoke, provider: notification.provider) }
        logger.log(.info, "apple notification applied", metadata: ["type": kind.rawValue])
        countNotification(provider: notification.provider, type: kind.rawValue, applied: true)
        return Self.notificationAnswer(applied: true, reason: nil)
    }

    static func notificationAnswer(applied: Bool, reason: String?) -> HTTPServerResponse {
        var object: [String: JSONValue] = ["applied": .bool(applied)]
        if let reason { object["reason"] = .string(reason) }
        return ResponseFactory.json(.object(object))
    }

    /// Parses and verifies the notification body.
    ///
    /// - Throws: ``ServerError`` `invalid_notification` (400).
    func verifyAppleNotification(_ request: HTTPServerRequest) async throws(ServerError) -> AppleNotification {
        func invalid(_ message: String) -> ServerError {
            ServerError(.invalidNotification, message, status: 400)
        }
        guard request.body.count <= options.maximumNotificationBytes else {
            throw invalid(
                "expected a body of at most \(options.maximumNotificationBytes) bytes, found \(request.body.count)")
        }
        guard let body = try? JSONValue.parse(request.body), let payload = body["payload"]?.stringValue else {
            throw invalid("expected a JSON body {\"payload\": JWS}, found something else")
        }
        // Routing only: the unverified `aud` picks the Apple provider whose keys and checks then apply.
        let audiences = Self.unverifiedAudiences(payload)
        guard
            let provider = providerNames.lazy.compactMap({ self.providers[$0] }).first(where: { provider in
                provider.type == "apple" && audiences.contains(where: provider.audiences.contains)
            }),
            let keys = keySets[provider.name]
        else {
            throw invalid("expected a notification addressed to a configured Apple client id, found another audience")
        }
        var checks = ClaimChecks(
            issuers: provider.acceptedIssuers, audiences: Set(provider.audiences), leeway: options.flow.leeway)
        checks.requireIssuedAt = true
        checks.requireExpiration = true
        let verifier = JWTVerifier(allowedAlgorithms: [.rs256], checks: checks)
        let claims: JWTClaims
        do throws(JOSEError) {
            claims = try await keys.verify(payload, with: verifier)
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

    /// The `aud` values of a compact JWS's payload, read without verification (for routing only).
    static func unverifiedAudiences(_ compact: String) -> [String] {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, compact.utf8.count <= 16 * 1024, let bytes = try? Base64URL.decode(parts[1]),
            let claims = try? JWTClaims(payload: bytes)
        else { return [] }
        return claims.audience
    }
}
