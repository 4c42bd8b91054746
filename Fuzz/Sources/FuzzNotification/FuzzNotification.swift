import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowServer
import Foundation
import FuzzSupport

/// `POST /auth/apple/notifications` bodies through the whole server route: JSON envelope, JWS verification
/// against Apple's (here: the fixed) keys, the `events` claim. Every body gets 200 or a typed 400; the
/// server never answers 500 and never crashes.
struct FixedKeyServer: HTTPClient {
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "application/json"
        return HTTPClientResponse(
            status: 200, headers: headers,
            body: JSONValue.object(["keys": .array([FixedKeys.rsa.publicKey.jsonValue()])])
                .serializedBytes())
    }
}

let server: SignInServer = {
    let clock = FixedClock(FixedKeys.now)
    let settings = ProviderSettings(
        name: "apple", type: "apple", clientID: "com.example.web", teamID: "ABCDE12345", keyID: "KEY1234567",
        privateKey: Secret(FixedKeys.ecPEM),
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
public func fuzzNotification(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    var headers = HTTPHeaders()
    headers["Content-Type"] = "application/json"
    let request = HTTPServerRequest(
        method: "POST", path: "/auth/apple/notifications", headers: headers, body: bytes(data, count),
        remoteAddress: "127.0.0.1")
    let response = blocking { await server.handle(request) }
    guard response.status == 200 || response.status == 400 else {
        fatalError("a notification body was answered \(response.status)")
    }
    return 0
}
