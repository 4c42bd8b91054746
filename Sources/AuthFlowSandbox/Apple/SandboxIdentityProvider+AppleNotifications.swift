import AuthFlowCurl
package import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Apple server-to-server notifications: signed with the same keys as Apple's id_tokens (the `/apple/auth/keys`
/// JWKS), `iss` = the sandbox Apple issuer, `aud` = the client id, and `events` a JSON string.
extension SandboxIdentityProvider {
    /// How long a notification JWS stays valid, in seconds.
    static let appleNotificationLifetime: Int64 = 300

    /// Builds the signed notification JWS for `event` (claims `iss`, `aud`, `iat`, `exp`, `jti`, `events`).
    ///
    /// `events` is a JSON *string* holding one object `{type, sub, event_time (epoch milliseconds)}`, plus
    /// `email` and `is_private_email` (a string) for the email events, exactly as Apple sends it.
    /// - Returns: the compact JWS and its `jti`.
    /// - Throws: `SandboxError.Code.keyFailure` when the Apple signing key is unavailable.
    package func appleNotificationJWS(for event: AppleNotificationEvent) throws(SandboxError) -> (
        jws: String, jti: String
    ) {
        let ring = try keyRing(for: .apple)
        let now = self.now
        let issuedAt = Int64(now.timeIntervalSince1970)
        var eventObject: [String: JSONValue] = [
            "type": .string(event.kind.rawValue), "sub": .string(event.subject),
            "event_time": .integer(Int64((now.timeIntervalSince1970 * 1000).rounded(.down))),
        ]
        if let email = event.email { eventObject["email"] = .string(email) }
        if let isPrivate = event.isPrivateEmail {
            eventObject["is_private_email"] = .string(isPrivate ? "true" : "false")
        }
        let jti = Hex.encode(configuration.random.bytes(16))
        let claims: JSONValue = .object([
            "iss": .string(issuer(for: .apple) ?? baseURL + "/apple"), "aud": .string(event.clientID),
            "iat": .integer(issuedAt), "exp": .integer(issuedAt + Self.appleNotificationLifetime), "jti": .string(jti),
            "events": .string(JSONValue.object(eventObject).serialized()),
        ])
        do {
            let jws = try JWS.sign(payload: Array(claims.serialized().utf8), key: ring.current, algorithm: .rs256)
            return (jws, jti)
        } catch {
            throw SandboxError(
                code: .keyFailure, message: "could not sign the notification: \(error.message)", provider: .apple)
        }
    }

    /// The body Apple POSTs: `{"payload": "<JWS>"}`.
    package func appleNotificationBody(for event: AppleNotificationEvent) throws(SandboxError) -> (
        body: [UInt8], jti: String
    ) {
        let signed = try appleNotificationJWS(for: event)
        return (Array(JSONValue.object(["payload": .string(signed.jws)]).serialized().utf8), signed.jti)
    }

    /// Applies `event` to the sandbox (consent-revoked and account-delete revoke the user's tokens for that
    /// client and make the next sign-in a first consent) and POSTs the signed notification to `url`.
    ///
    /// - Parameters:
    ///   - event: what to notify.
    ///   - url: the app's notification endpoint (absolute http or https).
    ///   - client: the HTTP client to deliver with; defaults to the configured
    ///     ``SandboxConfiguration/notificationClient`` or a `CurlHTTPClient`.
    /// - Throws: `SandboxError.Code.invalidRequest` when `url` is not http(s),
    ///   `SandboxError.Code.keyFailure` when signing fails, and
    ///   `SandboxError.Code.notificationDeliveryFailed` when the POST fails (any HTTP status
    ///   is a delivery; it is returned).
    package func sendAppleNotification(
        _ event: AppleNotificationEvent, to url: String, using client: (any HTTPClient)? = nil
    ) async throws(SandboxError) -> AppleNotificationDelivery {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else {
            throw SandboxError(
                code: .invalidRequest, message: "expected an absolute http(s) notification URL", provider: .apple)
        }
        let signed = try appleNotificationBody(for: event)
        if event.kind == .consentRevoked || event.kind == .accountDelete {
            forgetConsent(.apple, clientID: event.clientID, subject: event.subject)
        }
        var request = HTTPClientRequest(
            method: "POST", url: url, headers: ["Content-Type": "application/json"], body: signed.body)
        request.timeout = 10
        let sender = client ?? configuration.notificationClient ?? CurlHTTPClient()
        do {
            let response = try await sender.send(request)
            return AppleNotificationDelivery(status: response.status, jti: signed.jti)
        } catch {
            throw SandboxError(
                code: .notificationDeliveryFailed,
                message: "could not deliver the notification to \(components.host ?? "the receiver"): \(error)",
                provider: .apple, clientID: event.clientID)
        }
    }

    /// `POST /_sandbox/apple/notify` (loopback callers only): form or query fields `type`, `sub`, `client_id`,
    /// `to`, and optionally `email`, `is_private_email`. Sends the notification and answers
    /// `{"status": <receiver's status>, "jti": …}`.
    func handleAppleNotifyAdmin(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let fields = Parameters.form(of: request) ?? Parameters(request.query)
        if let problem = fields.shapeProblem { return OAuthFailure.invalidRequest(problem).oauthResponse() }
        guard let typeText = fields["type"], let kind = AppleNotificationEvent.Kind(rawValue: typeText) else {
            return OAuthFailure.invalidRequest(
                "type must be one of " + AppleNotificationEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            ).oauthResponse()
        }
        guard let subject = fields["sub"], let clientID = fields["client_id"], let url = fields["to"] else {
            return OAuthFailure.invalidRequest("sub, client_id and to are required").oauthResponse()
        }
        guard client(.apple, clientID: clientID) != nil else {
            return OAuthFailure.invalidRequest("client_id '\(clip(clientID))' is not a registered Apple client")
                .oauthResponse()
        }
        let isPrivate: Bool? =
            switch fields["is_private_email"] {
            case "true"?: true
            case "false"?: false
            default: nil
            }
        let event = AppleNotificationEvent(
            kind: kind, subject: subject, clientID: clientID, email: fields["email"], isPrivateEmail: isPrivate)
        do {
            let delivery = try await sendAppleNotification(event, to: url)
            return tokenResponse(["status": .integer(Int64(delivery.status)), "jti": .string(delivery.jti)])
        } catch {
            let status = error.code == .notificationDeliveryFailed ? 502 : 400
            return OAuthFailure(error.code.rawValue, error.message, status: status).oauthResponse()
        }
    }
}
