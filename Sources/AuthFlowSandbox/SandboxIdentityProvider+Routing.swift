public import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// Dispatch of one request to the emulator that owns its path.
extension SandboxIdentityProvider {
    /// Answers one HTTP request exactly as the listener would: the pure request → response core of the
    /// sandbox, usable without starting a listener (set ``SandboxConfiguration/publicBaseURL`` then).
    ///
    /// Unknown paths get 404 and known paths with the wrong method 405, both as JSON.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let path = request.path
        if path == "/" || path.isEmpty { return index() }
        if path.hasPrefix("/_sandbox/") { return await handleAdmin(request) }
        for provider in SandboxProvider.allCases {
            let prefix = provider.pathPrefix
            guard path.hasPrefix(prefix + "/") else { continue }
            let rest = String(path.dropFirst(prefix.count))
            switch provider {
            case .apple: return routeApple(request, rest)
            case .google: return routeGoogle(request, rest)
            case .facebook: return routeFacebook(request, rest)
            case .x: return routeX(request, rest)
            }
        }
        return Self.notFound()
    }

    private func routeApple(_ request: HTTPServerRequest, _ path: String) -> HTTPServerResponse {
        switch path {
        case "/auth/authorize": return only("GET", request) { handleAuthorize(request, provider: .apple) }
        case "/consent": return only("POST", request) { handleConsent(request, provider: .apple) }
        case "/auth/token": return only("POST", request) { handleAppleToken(request) }
        case "/auth/revoke": return only("POST", request) { handleAppleRevoke(request) }
        case "/auth/keys": return only("GET", request) { jwks(.apple) }
        case "/.well-known/openid-configuration": return only("GET", request) { discovery(.apple, appleDiscovery) }
        default: return Self.notFound()
        }
    }

    private func routeGoogle(_ request: HTTPServerRequest, _ path: String) -> HTTPServerResponse {
        switch path {
        case "/o/oauth2/v2/auth": return only("GET", request) { handleAuthorize(request, provider: .google) }
        case "/consent": return only("POST", request) { handleConsent(request, provider: .google) }
        case "/token": return only("POST", request) { handleGoogleToken(request) }
        case "/v1/userinfo": return only("GET", request) { handleGoogleUserinfo(request) }
        case "/revoke": return only("POST", request) { handleGoogleRevoke(request) }
        case "/oauth2/v3/certs": return only("GET", request) { jwks(.google) }
        case "/.well-known/openid-configuration": return only("GET", request) { discovery(.google, googleDiscovery) }
        case "/.well-known/risc-configuration": return only("GET", request) { discovery(.google, riscConfiguration) }
        default: return Self.notFound()
        }
    }

    private func routeFacebook(_ request: HTTPServerRequest, _ path: String) -> HTTPServerResponse {
        // Graph paths may carry a version segment (`/v19.0/…`); the sandbox answers any `vN.N`.
        var unversioned = Substring(path)
        let segments = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true)
        if let first = segments.first, Self.isGraphVersion(first) {
            unversioned = segments.count > 1 ? "/" + segments[1] : "/"
        }
        switch unversioned {
        case "/dialog/oauth": return only("GET", request) { handleAuthorize(request, provider: .facebook) }
        case "/consent": return only("POST", request) { handleConsent(request, provider: .facebook) }
        case "/oauth/access_token":
            guard request.method == "GET" else {
                var response = OAuthFailure(
                    "invalid_request",
                    "Unsupported \(clip(request.method)) request: the access_token endpoint takes GET with query parameters",
                    status: 405
                ).graphResponse()
                response.headers["Allow"] = "GET"
                return response
            }
            return handleFacebookToken(request)
        case "/me": return only("GET", request) { handleFacebookMe(request) }
        case "/.well-known/oauth/openid/jwks/", "/.well-known/oauth/openid/jwks":
            return only("GET", request) { jwks(.facebook) }
        case "/.well-known/openid-configuration":
            return only("GET", request) { discovery(.facebook, facebookDiscovery) }
        default: return Self.notFound()
        }
    }

    private func routeX(_ request: HTTPServerRequest, _ path: String) -> HTTPServerResponse {
        switch path {
        case "/i/oauth2/authorize": return only("GET", request) { handleAuthorize(request, provider: .x) }
        case "/consent": return only("POST", request) { handleConsent(request, provider: .x) }
        case "/2/oauth2/token": return only("POST", request) { handleXToken(request) }
        case "/2/oauth2/revoke": return only("POST", request) { handleXRevoke(request) }
        case "/2/users/me": return only("GET", request) { handleXMe(request) }
        default: return Self.notFound()
        }
    }

    private func handleAdmin(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard configuration.enableAdminEndpoints, Self.isLoopback(request.remoteAddress) else { return Self.notFound() }
        switch request.path {
        case "/_sandbox/apple/notify":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return await handleAppleNotifyAdmin(request)
        case "/_sandbox/facebook/data-deletion", "/_sandbox/facebook/deauthorize":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return await handleFacebookCallbackAdmin(request)
        case "/_sandbox/google/risc":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return await handleGoogleRISCAdmin(request)
        case "/_sandbox/apple/native", "/_sandbox/google/native", "/_sandbox/facebook/native":
            guard request.method == "POST" else { return Self.methodNotAllowed("POST") }
            return handleNativeAdmin(request)
        case "/_sandbox/revocations":
            guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
            return revocationsAdmin()
        default:
            return Self.notFound()
        }
    }

    /// `GET /_sandbox/revocations` (loopback callers only): every revocation the sandbox saw, grouped by
    /// provider (apple, google, facebook, x) and oldest first within each, as `{"revocations": [{"provider",
    /// "client_id", "token_type_hint", "token_kind", "token_sha256", "revoked_at"}]}`; the token itself is
    /// never shown, only the hex SHA-256 of it.
    private func revocationsAdmin() -> HTTPServerResponse {
        var entries: [JSONValue] = []
        for provider in SandboxProvider.allCases {
            for revocation in revocations(for: provider) {
                entries.append(
                    .object([
                        "provider": .string(provider.rawValue),
                        "client_id": revocation.clientID.map(JSONValue.string) ?? .null,
                        "token_type_hint": revocation.tokenTypeHint.map(JSONValue.string) ?? .null,
                        "token_kind": .string(revocation.kind.rawValue),
                        "token_sha256": .string(hex(Digest.sha256(Array(revocation.token.utf8)))),
                        "revoked_at": .integer(Int64(revocation.revokedAt.timeIntervalSince1970)),
                    ]))
            }
        }
        var response = HTTPServerResponse.json(JSONValue.object(["revocations": .array(entries)]).serialized())
        response.headers["Cache-Control"] = "no-store"
        return response
    }

    /// `GET /`: a JSON index of every provider's endpoints.
    private func index() -> HTTPServerResponse {
        var providers: [String: JSONValue] = [:]
        for provider in SandboxProvider.allCases {
            let endpoints = endpoints(for: provider)
            var object: [String: JSONValue] = [
                "authorization_endpoint": .string(endpoints.authorization), "token_endpoint": .string(endpoints.token),
            ]
            if let issuer = endpoints.issuer { object["issuer"] = .string(issuer) }
            if let value = endpoints.userinfo { object["userinfo_endpoint"] = .string(value) }
            if let value = endpoints.jwks { object["jwks_uri"] = .string(value) }
            if let value = endpoints.revocation { object["revocation_endpoint"] = .string(value) }
            if let value = endpoints.discovery { object["discovery"] = .string(value) }
            providers[provider.rawValue] = .object(object)
        }
        return HTTPServerResponse.json(
            JSONValue.object([
                "sandbox": .string("AuthFlow sandbox identity provider"), "providers": .object(providers),
            ])
            .serialized())
    }

    private func jwks(_ provider: SandboxProvider) -> HTTPServerResponse {
        state.withLock { $0.count(provider, \.jwks) }
        do {
            var response = HTTPServerResponse.json(try keyRing(for: provider).jwksDocument().serialized())
            response.headers["Cache-Control"] = "public, max-age=300"
            return response
        } catch {
            return OAuthFailure("server_error", error.message, status: 500).oauthResponse()
        }
    }

    private func discovery(_ provider: SandboxProvider, _ document: () -> JSONValue) -> HTTPServerResponse {
        state.withLock { $0.count(provider, \.discovery) }
        var response = HTTPServerResponse.json(document().serialized())
        response.headers["Cache-Control"] = "public, max-age=300"
        return response
    }

    private func only(
        _ method: String, _ request: HTTPServerRequest, _ handler: () -> HTTPServerResponse
    ) -> HTTPServerResponse {
        guard request.method == method else { return Self.methodNotAllowed(method) }
        return handler()
    }

    static func methodNotAllowed(_ allowed: String) -> HTTPServerResponse {
        var response = OAuthFailure("method_not_allowed", "this endpoint accepts \(allowed) only", status: 405)
            .oauthResponse()
        response.headers["Allow"] = allowed
        return response
    }

    static func notFound() -> HTTPServerResponse {
        OAuthFailure("not_found", "no sandbox endpoint at this path", status: 404).oauthResponse()
    }

    static func isGraphVersion(_ segment: Substring) -> Bool {
        guard segment.first == "v" else { return false }
        let parts = segment.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) }
    }

    static func isLoopback(_ address: String) -> Bool {
        var host = Substring(address)
        if host.hasPrefix("[") {
            host = host.dropFirst().prefix { $0 != "]" }
        } else if host.filter({ $0 == ":" }).count == 1 {
            host = host.prefix { $0 != ":" }  // IPv4 with a port
        }
        return host.hasPrefix("127.") || host == "::1" || host == "localhost" || host.hasPrefix("::ffff:127.")
    }
}
