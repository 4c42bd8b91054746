import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// Google Cross-Account Protection (RISC): security event tokens (RFC 8417) pushed to the app (RFC 8935),
/// through the plugin events seam.
struct GoogleRISCEvents: ProviderEventHandling {
    /// Google's RISC issuer, as `https://accounts.google.com/.well-known/risc-configuration` states it
    /// (with a trailing `/`, unlike the id_token issuer). Its `jwks_uri` is the sign-in certs endpoint, so
    /// events are verified with the sign-in key cache.
    static let riscIssuer = "https://accounts.google.com/"
    /// The prefix of the RISC event types.
    static let riscEventPrefix = "https://schemas.openid.net/secevent/risc/event-type/"
    /// The prefix of the OAuth event types.
    static let oauthEventPrefix = "https://schemas.openid.net/secevent/oauth/event-type/"

    /// `POST /auth/{name}/events`.
    func eventEndpoints(for provider: ResolvedProvider) -> [ProviderEventEndpoint] {
        [ProviderEventEndpoint(path: "events", method: "POST", maximumBodyBytes: 32 * 1024)]
    }

    /// The `iss` of the provider's security event tokens: ``riscIssuer`` for Google's own issuer, the
    /// configured `issuer` otherwise (a stand-in such as the sandbox publishes its RISC configuration there).
    static func riscIssuer(for provider: ResolvedProvider) -> String? {
        guard let issuer = provider.issuer else { return nil }
        return issuer == GooglePlugin.issuer ? riscIssuer : issuer
    }

    /// Verifies a security event token and names its effects, applied once per `jti`.
    ///
    /// Verification: the body is the compact JWS; RS256 with the provider's JWKS (the sign-in cache); `iss`
    /// = `riscIssuer(for:)`; `aud` one of the client ids; `iat` required; **no `exp` check** (SETs record
    /// past events); a `jti`; an `events` object. Effects per event type: `sessions-revoked` ends the
    /// identity's sessions; `tokens-revoked` also deletes its stored tokens; `token-revoked` deletes the
    /// stored tokens whose refresh token matches the `prefix` or `hash_base64_sha512_sha512` identifier: of
    /// the identity the event names with `iss-sub`, or, as Google sends it (the token alone), of the identity
    /// the account store finds by its refresh token index (nothing when none matches);
    /// `account-disabled` with `reason` `hijacking` ends the sessions and disables sign-in until
    /// `account-enabled`; `account-credential-change-required`, `verification` and other reasons are logged.
    /// Answers 202 (also for a replay or an unknown subject); 400 `{"err", "description"}` when refused.
    ///
    /// - Throws: `ProviderEventError` with the RFC 8935 answer.
    func handleEvent(_ request: ProviderEventRequest, context: ProviderEventContext)
        async throws(ProviderEventError) -> ProviderEventOutcome
    {
        let provider = context.provider
        guard let issuer = Self.riscIssuer(for: provider) else {
            throw Self.refusal("invalid_issuer", "expected a configured issuer for the provider, found none")
        }
        let token = String(decoding: request.http.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw Self.refusal("invalid_request", "expected a SET as the body, found none") }
        let claims: JWTClaims
        do throws(JOSEError) {
            claims = try await context.verify(
                token,
                with: provider.jwtVerifier(leeway: context.leeway, issuers: [issuer], requireExpiration: false))
        } catch {
            throw Self.refusal(Self.errCode(error.code), "the SET failed verification: \(error.message)")
        }
        guard let jti = claims.string("jti"), !jti.isEmpty, jti.utf8.count <= 256 else {
            throw Self.refusal("invalid_request", "expected a 'jti' claim, found none")
        }
        guard let events = claims["events"]?.objectValue, !events.isEmpty, events.count <= 16 else {
            throw Self.refusal("invalid_request", "expected an 'events' object with 1 to 16 events, found none")
        }
        var actions: [ProviderEventAction] = []
        var types: [String] = []
        for (type, body) in events.sorted(by: { $0.key < $1.key }) {
            let name = Self.eventName(type)
            types.append(name)
            actions += try await Self.actions(for: name, body, provider: provider, context: context)
        }
        let summary = types.joined(separator: ",")
        return ProviderEventOutcome(idempotencyKey: "risc:\(jti)", actions: actions, summary: summary) { _ in
            var response = HTTPServerResponse.empty(status: 202)
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }

    /// The last path segment of a known event type URI, or the whole type otherwise.
    static func eventName(_ type: String) -> String {
        for prefix in [riscEventPrefix, oauthEventPrefix] where type.hasPrefix(prefix) {
            return String(type.dropFirst(prefix.count))
        }
        return String(type.prefix(128))
    }

    static func actions(
        for name: String, _ body: JSONValue, provider: ResolvedProvider, context: ProviderEventContext
    ) async throws(ProviderEventError) -> [ProviderEventAction] {
        let subject = body["subject"]
        var key: IdentityKey?
        if subject?["subject_type"]?.stringValue == "iss-sub", let sub = subject?["sub"]?.stringValue, !sub.isEmpty,
            sub.utf8.count <= 255
        {
            key = IdentityKey(provider: provider.name, subject: sub)
        }
        switch name {
        case "sessions-revoked", "tokens-revoked", "account-disabled", "account-enabled":
            guard let key else {
                throw refusal("invalid_request", "expected an iss-sub subject for \(name), found none")
            }
            guard try await context.identity(key) != nil else { return [] }
            switch name {
            case "sessions-revoked":
                return [.endSessions(key)]
            case "tokens-revoked":
                return [.account(.deleteTokens(key)), .endSessions(key)]
            case "account-disabled":
                guard body["reason"]?.stringValue == "hijacking" else { return [] }
                return [.account(.setDisabled(key, true)), .endSessions(key)]
            default:
                return [.account(.setDisabled(key, false))]
            }
        case "token-revoked":
            guard let value = subject?["token"]?.stringValue,
                let identifier = RefreshTokenIdentifier(
                    algorithm: subject?["token_identifier_alg"]?.stringValue ?? "", value: value)
            else { return [] }
            if let key {
                guard try await context.identity(key) != nil else { return [] }
            }
            do throws(StoreError) {
                guard let key else {
                    // Google's events name the token alone: find whose stored refresh token it is.
                    guard
                        let owner = try await context.accounts.identity(
                            provider: provider.name, refreshToken: identifier)
                    else { return [] }
                    return [.account(.deleteTokens(owner))]
                }
                guard let refresh = try await context.accounts.tokens(for: key)?.refreshToken,
                    identifier.matches(refresh)
                else { return [] }
                return [.account(.deleteTokens(key))]
            } catch {
                throw .storeUnavailable(error)
            }
        default:
            // account-credential-change-required, verification and unknown types: logged only.
            return []
        }
    }

    /// The RFC 8935 §2.4 error code for a verification failure.
    static func errCode(_ code: JOSEError.Code) -> String {
        switch code {
        case .issuerMismatch: "invalid_issuer"
        case .audienceMismatch, .authorizedPartyMismatch: "invalid_audience"
        case .keyNotFound, .jwksUnavailable, .algorithmNotAllowed: "invalid_key"
        case .invalidSignature: "authentication_failed"
        default: "invalid_request"
        }
    }

    /// A refusal answered `400 {"err", "description"}` (RFC 8935 §2.3).
    static func refusal(_ err: String, _ description: String) -> ProviderEventError {
        var response = HTTPServerResponse.json(
            JSONValue.object(["err": .string(err), "description": .string(description)]).serialized(), status: 400)
        response.headers["Cache-Control"] = "no-store"
        return ProviderEventError(code: err, description, status: 400, response: response)
    }
}
