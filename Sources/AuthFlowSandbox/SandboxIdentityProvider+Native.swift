import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// `POST /_sandbox/{apple,google,facebook}/native`: what a native app gets from its provider's SDK.
extension SandboxIdentityProvider {
    /// `POST /_sandbox/{apple,google,facebook}/native` (loopback callers only): a JSON body
    /// `{"identity": {"subject", "email"?, "email_verified"?, "given_name"?, "family_name"?,
    /// "is_private_email"?}, "audience", "nonce"?, "authorized_party"?}` (or `"preset": N` for one of
    /// ``SandboxIdentity/presets(for:)`` instead of `identity`) answers `{"id_token"}` signed by the provider's
    /// key: `aud` = `audience` (Apple: a registered bundle id; Google: the server's client id, with `azp` =
    /// `authorized_party`, the Android/iOS client; Facebook Limited Login: the app id), `nonce` copied as
    /// given. Apple also answers `"code"`: an authorization code its token endpoint accepts once, from that
    /// bundle id (client secret `sub`), without `redirect_uri`.
    func handleNativeAdmin(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let segment = request.path.split(separator: "/").dropFirst().first.map(String.init) ?? ""
        guard let provider = SandboxProvider(rawValue: segment), provider.issuesIDTokens else {
            return Self.notFound()
        }
        func refuse(_ message: String) -> HTTPServerResponse {
            OAuthFailure.invalidRequest(message).oauthResponse()
        }
        guard request.body.count <= 16 * 1024, let json = try? JSONValue.parse(request.body),
            let body = json.objectValue
        else { return refuse("expected a JSON object body of at most 16 KiB") }
        guard let audience = body["audience"]?.stringValue, !audience.isEmpty else {
            return refuse("audience (the token's aud) is required")
        }
        let identity: SandboxIdentity
        switch Self.nativeIdentity(body, provider: provider) {
        case .failure(let refusal): return refuse(refusal.description)
        case .success(let value): identity = value
        }
        let nonce = body["nonce"]?.stringValue
        let authorizedParty = body["authorized_party"]?.stringValue
        let scopes = provider.emulator.nativeScopes
        let now = self.now
        var answer: [String: JSONValue] = [:]
        do throws(SandboxError) {
            answer["id_token"] = .string(
                try signIDToken(
                    provider: provider, clientID: audience, identity: identity, scopes: scopes, nonce: nonce,
                    authTime: Int64(now.timeIntervalSince1970), accessToken: nil, authorizedParty: authorizedParty))
        } catch {
            return OAuthFailure("server_error", error.message, status: 500).oauthResponse()
        }
        if provider == .apple {
            guard client(.apple, clientID: audience) != nil else {
                return refuse("audience '\(clip(audience))' is not a registered Apple client (bundle id)")
            }
            let code = randomToken(prefix: provider.emulator.codePrefix)
            let authorization = AuthorizationRequest(
                provider: .apple, clientID: audience, redirectURI: "", scopes: scopes, state: nil, nonce: nonce,
                challenge: nil)
            let record = CodeRecord(
                request: authorization, identity: identity, authTime: Int64(now.timeIntervalSince1970),
                expiresAt: now.addingTimeInterval(provider.authorizationCodeLifetime), issuesRefreshToken: true)
            guard state.withLock({ $0.addCode(code, record, now: now) }) else {
                return OAuthFailure("temporarily_unavailable", "too many outstanding codes", status: 503)
                    .oauthResponse()
            }
            answer["code"] = .string(code)
        }
        return tokenResponse(answer)
    }

    /// The identity of a native token request: `preset` (an index into the provider's presets) or `identity`
    /// (`subject` required).
    static func nativeIdentity(_ body: [String: JSONValue], provider: SandboxProvider)
        -> Result<SandboxIdentity, AuthorizationRefusal>
    {
        if let preset = body["preset"]?.int64Value {
            let presets = SandboxIdentity.presets(for: provider)
            guard preset >= 0, Int(preset) < presets.count else {
                return .failure(AuthorizationRefusal("invalid_request", "preset must be 0..<\(presets.count)"))
            }
            return .success(presets[Int(preset)])
        }
        guard let object = body["identity"]?.objectValue, let subject = object["subject"]?.stringValue,
            !subject.isEmpty
        else {
            return .failure(
                AuthorizationRefusal("invalid_request", "identity {\"subject\", ...} or preset is required"))
        }
        return .success(
            SandboxIdentity(
                subject: subject, email: object["email"]?.stringValue, givenName: object["given_name"]?.stringValue,
                familyName: object["family_name"]?.stringValue,
                emailVerified: object["email_verified"]?.boolValue ?? true,
                isPrivateEmail: object["is_private_email"]?.boolValue ?? false))
    }
}
