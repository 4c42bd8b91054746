import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowJOSE
import Foundation
import Synchronization

/// A tiny OpenID Connect issuer on a real loopback listener: it serves a discovery document whose
/// members a test chooses (by default a correct one naming this listener as issuer).
final class TestIssuer: Sendable {
    struct Served: Sendable {
        var document: (@Sendable (_ baseURL: String) -> JSONValue)?
        var status = 200
        var rawBody: [UInt8]?
        var requests = 0
    }

    final class Shared: Sendable {
        let served: Mutex<Served>
        let baseURL = Mutex("")
        init(_ served: Served) { self.served = Mutex(served) }
    }

    let server: HTTPServer
    let shared: Shared
    let baseURL: String

    /// Starts a listener on a free loopback port serving `document(baseURL)`.
    init(document: @escaping @Sendable (_ baseURL: String) -> JSONValue = TestIssuer.googleLike) throws {
        let shared = Shared(Served(document: document))
        server = HTTPServer(configuration: .init()) { request in
            let base = shared.baseURL.withLock { $0 }
            return shared.served.withLock { served -> HTTPServerResponse in
                served.requests += 1
                guard request.path == "/.well-known/openid-configuration" else {
                    return .error("not_found", message: "no such path", status: 404)
                }
                if let raw = served.rawBody { return HTTPServerResponse.json(raw, status: served.status) }
                let body = served.document?(base) ?? .object([:])
                return HTTPServerResponse.json(body.serialized(), status: served.status)
            }
        }
        let port = try server.start()
        let base = "http://127.0.0.1:\(port)"
        shared.baseURL.withLock { $0 = base }
        baseURL = base
        self.shared = shared
    }

    func stop() async { await server.stop() }

    var requests: Int { shared.served.withLock { $0.requests } }

    func serve(status: Int, rawBody: [UInt8]?) {
        shared.served.withLock {
            $0.status = status
            $0.rawBody = rawBody
        }
    }

    /// A correct document shaped like Google's, rooted at `base`.
    static func googleLike(_ base: String) -> JSONValue {
        .object([
            "issuer": .string(base),
            "authorization_endpoint": .string(base + "/authorize"),
            "token_endpoint": .string(base + "/token"),
            "userinfo_endpoint": .string(base + "/userinfo"),
            "revocation_endpoint": .string(base + "/revoke"),
            "jwks_uri": .string(base + "/jwks"),
            "response_types_supported": ["code", "token", "id_token"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic"],
            "code_challenge_methods_supported": ["plain", "S256"],
        ])
    }

    /// ``googleLike(_:)`` with `changes` applied (`.null` removes a member).
    static func document(_ base: String, _ changes: [String: JSONValue]) -> JSONValue {
        var object = googleLike(base).objectValue ?? [:]
        for (key, value) in changes {
            if value == .null { object[key] = nil } else { object[key] = value }
        }
        return .object(object)
    }
}

extension TestIssuer {
    /// Starts issuers serving `documents`, runs `body` with them, and always stops them.
    static func withAll<T>(
        _ documents: [@Sendable (_ baseURL: String) -> JSONValue] = [TestIssuer.googleLike],
        _ body: ([TestIssuer]) async throws -> T
    ) async throws -> T {
        var issuers: [TestIssuer] = []
        do {
            for document in documents { issuers.append(try TestIssuer(document: document)) }
            let result = try await body(issuers)
            for issuer in issuers { await issuer.stop() }
            return result
        } catch {
            for issuer in issuers { await issuer.stop() }
            throw error
        }
    }

    /// One issuer serving `document`, stopped after `body`.
    static func with<T>(
        document: @escaping @Sendable (_ baseURL: String) -> JSONValue = TestIssuer.googleLike,
        _ body: (TestIssuer) async throws -> T
    ) async throws -> T {
        try await withAll([document]) { issuers in try await body(issuers[0]) }
    }
}
