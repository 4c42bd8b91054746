import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowServer
import Foundation
import FuzzSupport

// A configuration built in code (`Configuration(providers:)` is `package`: reached with `@testable`, as
// scripts/fuzz.sh builds with -enable-testing), then resolved through real discovery.
@testable import AuthFlow

/// OpenID Connect back-channel logout bodies (`logout_token=…`) through the whole server route
/// `POST /auth/corp/backchannel-logout` of a discovered issuer that supports it: the form, the JWS verified
/// against the (here: fixed) keys, `iss`/`aud`/`iat`/`exp`, `sub`/`sid`, `events`, no `nonce`, `jti` once.
/// Every body gets 200 or a typed 400, never 500 or a crash.
///
/// The issuer: its discovery document (which the asynchronous resolution fetches) and its fixed keys.
struct FixedIssuer: HTTPClient {
    static let issuer = FixedKeys.issuer
    static let document: JSONValue = .object([
        "issuer": .string(issuer), "authorization_endpoint": .string(issuer + "/authorize"),
        "token_endpoint": .string(issuer + "/token"), "jwks_uri": .string(issuer + "/jwks"),
        "response_types_supported": .array([.string("code")]),
        "id_token_signing_alg_values_supported": .array([.string("RS256"), .string("ES256")]),
        "token_endpoint_auth_methods_supported": .array([.string("client_secret_post")]),
        "code_challenge_methods_supported": .array([.string("S256")]),
        "backchannel_logout_supported": .bool(true),
    ])

    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "application/json"
        let keys: JSONValue = .object([
            "keys": .array([FixedKeys.rsa.publicKey.jsonValue(), FixedKeys.ec.publicKey.jsonValue()])
        ])
        let discovery = request.url.hasSuffix("/.well-known/openid-configuration")
        return HTTPClientResponse(
            status: 200, headers: headers, body: (discovery ? Self.document : keys).serializedBytes())
    }
}

let server: SignInServer = {
    let clock = FixedClock(FixedKeys.now)
    let issuer = FixedKeys.issuer
    let settings = ProviderSettings(
        name: "corp", type: "oidc", clientID: FixedKeys.audience, clientSecret: Secret("fuzz-oidc-secret"),
        scopes: ["openid"], issuer: issuer,
        location: SourceLocation(fileName: "fuzz.yaml", line: 1, column: 1, sourceLine: nil))
    var configuration = Configuration(providers: [settings])
    configuration.publicURL = "https://app.example"
    let resolving = configuration
    let resolved = blocking { () async -> Result<[ResolvedProvider], ConfigurationError> in
        do throws(ConfigurationError) {
            return .success(try await ProviderRegistry.standard.resolve(resolving, httpClient: FixedIssuer()))
        } catch {
            return .failure(error)
        }
    }
    switch resolved {
    case .success(let providers):
        return SignInServer(
            options: SignInServer.Options(
                publicURL: "https://app.example", secret: Secret("fuzz-secret-0123456789abcdef-0123456789")),
            providers: providers, stores: .memory(clock: clock), httpClient: FixedIssuer(), clock: clock)
    case .failure(let error):
        fatalError("the fuzz server does not start: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLogoutToken(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    var headers = HTTPHeaders()
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    let request = HTTPServerRequest(
        method: "POST", path: "/auth/corp/backchannel-logout", headers: headers, body: bytes(data, count),
        remoteAddress: "127.0.0.1")
    let response = blocking { await server.handle(request) }
    guard response.status == 200 || response.status == 400 else {
        fatalError("a logout token was answered \(response.status)")
    }
    return 0
}
