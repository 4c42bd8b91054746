import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowServer
import Foundation
import FuzzSupport

/// Google's security event tokens (RISC, RFC 8417 / 8935) through the whole server route
/// `POST /auth/google/events`: the compact JWS verified against the (here: fixed) keys, the claims, the
/// `events` object and each event's subject. Every body gets 202 or a typed 400, never 500 or a crash.
struct FixedKeyServer: HTTPClient {
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "application/json"
        return HTTPClientResponse(
            status: 200, headers: headers,
            body: JSONValue.object(["keys": .array([FixedKeys.rsa.publicKey.jsonValue()])]).serializedBytes())
    }
}

let server: SignInServer = {
    let clock = FixedClock(FixedKeys.now)
    let settings = ProviderSettings(
        name: "google", type: "google", clientID: "fuzz-client.apps.googleusercontent.com",
        clientSecret: Secret("fuzz-google-secret"),
        location: SourceLocation(fileName: "fuzz.yaml", line: 1, column: 1, sourceLine: nil))
    do {
        let provider = try ProviderRegistry.standard.resolve(settings, publicURL: "https://app.example")
        return SignInServer(
            options: SignInServer.Options(
                publicURL: "https://app.example", secret: Secret("fuzz-secret-0123456789abcdef-0123456789")),
            providers: [provider], stores: .memory(clock: clock), httpClient: FixedKeyServer(), clock: clock)
    } catch {
        fatalError("the fuzz server does not start: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSecurityEvent(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    var headers = HTTPHeaders()
    headers["Content-Type"] = "application/secevent+jwt"
    let request = HTTPServerRequest(
        method: "POST", path: "/auth/google/events", headers: headers, body: bytes(data, count),
        remoteAddress: "127.0.0.1")
    let response = blocking { await server.handle(request) }
    guard response.status == 202 || response.status == 400 else {
        fatalError("a security event token was answered \(response.status)")
    }
    return 0
}
