import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Facebook's signed-request callbacks and Google's RISC security event tokens, sent the way the providers
/// send them, plus the RISC configuration Google publishes.
extension SandboxIdentityProvider {
    /// The RISC event type URI of `name` (`sessions-revoked`, `tokens-revoked`, `token-revoked`,
    /// `account-disabled`, `account-enabled`, `account-credential-change-required`, `verification`).
    package static func riscEventType(_ name: String) -> String? {
        switch name {
        case "tokens-revoked", "token-revoked":
            "https://schemas.openid.net/secevent/oauth/event-type/" + name
        case "sessions-revoked", "account-disabled", "account-enabled", "account-credential-change-required",
            "verification":
            "https://schemas.openid.net/secevent/risc/event-type/" + name
        default:
            nil
        }
    }

    /// `GET /google/.well-known/risc-configuration`: the sandbox Google's RISC configuration, shaped like
    /// `https://accounts.google.com/.well-known/risc-configuration` (its issuer is the sandbox Google issuer,
    /// its `jwks_uri` the id_token certs, as Google's is).
    func riscConfiguration() -> JSONValue {
        let endpoints = endpoints(for: .google)
        return .object([
            "issuer": .string(endpoints.issuer ?? ""),
            "jwks_uri": .string(endpoints.jwks ?? ""),
            "delivery_methods_supported": .array([
                .string("https://schemas.openid.net/secevent/risc/delivery-method/push")
            ]),
            "configuration_endpoint": .string(baseURL + "/_sandbox/google/risc"),
        ])
    }

    /// Facebook's `signed_request` for `userID`: `base64url(HMAC-SHA256(app secret, payload)) "."
    /// base64url(payload)` with payload `{"algorithm": "HMAC-SHA256", "issued_at", "user_id"}`.
    ///
    /// - Throws: `SandboxError.Code.unknownClient` when `clientID` is no Facebook client with a
    ///   secret.
    package func facebookSignedRequest(userID: String, clientID: String) throws(SandboxError) -> String {
        guard let secret = client(.facebook, clientID: clientID)?.clientSecret else {
            throw SandboxError(
                code: .unknownClient, message: "client_id is not a registered Facebook client with a secret",
                provider: .facebook)
        }
        let payload = JSONValue.object([
            "algorithm": .string("HMAC-SHA256"), "issued_at": .integer(Int64(now.timeIntervalSince1970)),
            "user_id": .string(userID),
        ])
        let encoded = Base64URL.encode(Array(payload.serialized().utf8))
        let signature = Digest.hmacSHA256(key: Array(secret.utf8), message: Array(encoded.utf8))
        return Base64URL.encode(signature) + "." + encoded
    }

    /// A Google security event token (RFC 8417) for the event `name` about `subject`, signed with the Google
    /// id_token key: `iss` the sandbox Google issuer, `aud` the client id, `iat`, `jti`, no `exp`, and
    /// `events` `{<type URI>: {"subject": {"subject_type": "iss-sub", "iss", "sub"}, "reason"?}}`.
    ///
    /// - Returns: the compact JWS and its `jti`.
    /// - Throws: `SandboxError.Code.invalidRequest` for an unknown event name,
    ///   `SandboxError.Code.keyFailure` when signing fails.
    package func googleSecurityEventToken(
        _ name: String, subject: String, clientID: String, reason: String? = nil
    ) throws(SandboxError) -> (jws: String, jti: String) {
        guard let type = Self.riscEventType(name) else {
            throw SandboxError(code: .invalidRequest, message: "unknown RISC event type", provider: .google)
        }
        let issuer = issuer(for: .google) ?? baseURL + "/google"
        var event: [String: JSONValue] = [
            "subject": .object(["subject_type": .string("iss-sub"), "iss": .string(issuer), "sub": .string(subject)])
        ]
        if name == "verification" { event = ["state": .string(subject)] }
        if let reason { event["reason"] = .string(reason) }
        let jti = Hex.encode(configuration.random.bytes(16))
        let claims: JSONValue = .object([
            "iss": .string(issuer), "aud": .string(clientID), "iat": .integer(Int64(now.timeIntervalSince1970)),
            "jti": .string(jti), "events": .object([type: .object(event)]),
        ])
        let ring = try keyRing(for: .google)
        do {
            let jws = try JWS.sign(payload: Array(claims.serialized().utf8), key: ring.current, algorithm: .rs256)
            return (jws, jti)
        } catch {
            throw SandboxError(
                code: .keyFailure, message: "could not sign the security event: \(error.message)", provider: .google)
        }
    }

    /// `POST /_sandbox/facebook/data-deletion` and `/_sandbox/facebook/deauthorize` (loopback callers only):
    /// form or query fields `user_id`, `client_id`, `to`. POSTs `signed_request` to `to` as Facebook does and
    /// answers `{"status": <receiver's status>, "response": <receiver's JSON body, when it sent one>}`.
    func handleFacebookCallbackAdmin(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let fields = Parameters.form(of: request) ?? Parameters(request.query)
        if let problem = fields.shapeProblem { return OAuthFailure.invalidRequest(problem).oauthResponse() }
        guard let userID = fields["user_id"], !userID.isEmpty, let clientID = fields["client_id"],
            let url = fields["to"]
        else {
            return OAuthFailure.invalidRequest("user_id, client_id and to are required").oauthResponse()
        }
        let signed: String
        do {
            signed = try facebookSignedRequest(userID: userID, clientID: clientID)
        } catch {
            return OAuthFailure.invalidRequest(error.message).oauthResponse()
        }
        // The user removed the app (or asked for deletion): the next sign-in asks for consent again.
        forgetConsent(.facebook, clientID: clientID, subject: userID)
        let body = Array(FormURLEncoding.encode([("signed_request", signed)]).utf8)
        return await deliver(
            body, contentType: "application/x-www-form-urlencoded", to: url, provider: .facebook, extra: [:])
    }

    /// `POST /_sandbox/google/risc` (loopback callers only): form or query fields `type` (the event type's last
    /// path segment), `sub`, `client_id`, `to`, optional `reason`. POSTs the signed SET to `to` as Google
    /// does (`application/secevent+jwt`) and answers `{"status", "jti", "response"?}`.
    func handleGoogleRISCAdmin(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let fields = Parameters.form(of: request) ?? Parameters(request.query)
        if let problem = fields.shapeProblem { return OAuthFailure.invalidRequest(problem).oauthResponse() }
        guard let type = fields["type"], Self.riscEventType(type) != nil else {
            return OAuthFailure.invalidRequest(
                "type must be one of sessions-revoked, tokens-revoked, token-revoked, account-disabled, "
                    + "account-enabled, account-credential-change-required, verification"
            ).oauthResponse()
        }
        guard let subject = fields["sub"], !subject.isEmpty, let clientID = fields["client_id"],
            let url = fields["to"]
        else {
            return OAuthFailure.invalidRequest("sub, client_id and to are required").oauthResponse()
        }
        guard client(.google, clientID: clientID) != nil else {
            return OAuthFailure.invalidRequest("client_id '\(clip(clientID))' is not a registered Google client")
                .oauthResponse()
        }
        let signed: (jws: String, jti: String)
        do {
            signed = try googleSecurityEventToken(type, subject: subject, clientID: clientID, reason: fields["reason"])
        } catch {
            return OAuthFailure(error.code.rawValue, error.message, status: 400).oauthResponse()
        }
        return await deliver(
            Array(signed.jws.utf8), contentType: "application/secevent+jwt", to: url, provider: .google,
            extra: ["jti": .string(signed.jti)])
    }

    /// POSTs `body` to the app's `url` and answers with the receiver's status and JSON body.
    private func deliver(
        _ body: [UInt8], contentType: String, to url: String, provider: SandboxProvider, extra: [String: JSONValue]
    ) async -> HTTPServerResponse {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else {
            return OAuthFailure.invalidRequest("to must be an absolute http(s) URL").oauthResponse()
        }
        var request = HTTPClientRequest(
            method: "POST", url: url, headers: ["Content-Type": contentType, "Accept": "application/json"], body: body)
        request.timeout = 10
        let sender = configuration.notificationClient ?? CurlHTTPClient()
        do {
            let response = try await sender.send(request)
            var answer = extra
            answer["status"] = .integer(Int64(response.status))
            if let json = try? JSONValue.parse(response.body) { answer["response"] = json }
            return tokenResponse(answer)
        } catch {
            return OAuthFailure(
                SandboxError.Code.notificationDeliveryFailed.rawValue,
                "could not deliver the \(provider.rawValue) event to \(components.host ?? "the receiver")", status: 502
            ).oauthResponse()
        }
    }
}
