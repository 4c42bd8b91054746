package import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Synchronization

/// Dispatch of one request to the emulator that owns its path.
extension SandboxIdentityProvider {
    /// Answers one HTTP request exactly as the listener would: the pure request → response core of the
    /// sandbox, usable without starting a listener (set `SandboxConfiguration.publicBaseURL` then).
    ///
    /// Unknown paths get 404 and known paths with the wrong method 405, both as JSON.
    package func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let path = request.path
        if path == "/" || path.isEmpty { return index() }
        if path.hasPrefix("/_sandbox/") { return await handleAdmin(request) }
        if let (emulator, rest) = Self.emulator(forPath: path) {
            return emulator.route(request, path: rest, sandbox: self)
        }
        return Self.notFound()
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
    /// provider (in ``SandboxProvider`` order) and oldest first within each, as `{"revocations": [{"provider",
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
                        "token_sha256": .string(Hex.encode(Digest.sha256(Array(revocation.token.utf8)))),
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
            if let value = endpoints.endSession { object["end_session_endpoint"] = .string(value) }
            providers[provider.rawValue] = .object(object)
        }
        return HTTPServerResponse.json(
            JSONValue.object([
                "sandbox": .string("AuthFlow sandbox identity provider"), "providers": .object(providers),
            ])
            .serialized())
    }

    func jwks(_ provider: SandboxProvider) -> HTTPServerResponse {
        state.withLock { $0.count(provider, \.jwks) }
        do {
            let algorithm = idTokenAlgorithm(provider)
            var response = HTTPServerResponse.json(
                try keyRing(for: provider).jwksDocument(algorithm: algorithm).serialized())
            response.headers["Cache-Control"] = "public, max-age=300"
            return response
        } catch {
            return OAuthFailure("server_error", error.message, status: 500).oauthResponse()
        }
    }

    func discovery(_ provider: SandboxProvider, _ document: () -> JSONValue) -> HTTPServerResponse {
        state.withLock { $0.count(provider, \.discovery) }
        var response = HTTPServerResponse.json(document().serialized())
        response.headers["Cache-Control"] = "public, max-age=300"
        return response
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
