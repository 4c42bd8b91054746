import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import Foundation
import FuzzSupport

// `rateLimits:` is the package initialiser of the options.
@testable import AuthFlowServer

/// Native-app sign-in bodies (`POST /auth/google/native`, JSON `{"id_token", "nonce", "code"?, "user"?,
/// "intent"?}`) through the whole server route: the body, the sealed nonce, the ID token verified against the
/// (here: fixed) keys with the native audiences, the nonce spent once, the account and the bearer session.
/// In the input, `@NONCE@` stands for a nonce this server issued and `@ID_TOKEN@` for a Google ID token signed
/// with the fixed key that carries it, so inputs reach past the nonce and the signature. Every body gets 200 or
/// a typed 4xx, never 500 or a crash.
struct FixedKeyServer: HTTPClient {
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "application/json"
        return HTTPClientResponse(
            status: 200, headers: headers,
            body: JSONValue.object(["keys": .array([FixedKeys.rsa.publicKey.jsonValue()])]).serializedBytes())
    }
}

let webClient = "fuzz-client.apps.googleusercontent.com"
let nativeClient = "fuzz-ios.apps.googleusercontent.com"

let server: SignInServer = {
    let clock = FixedClock(FixedKeys.now)
    let settings = ProviderSettings(
        name: "google", type: "google", clientID: webClient, clientSecret: Secret("fuzz-google-secret"),
        location: SourceLocation(fileName: "fuzz.yaml", line: 1, column: 1, sourceLine: nil),
        nativeClients: [nativeClient])
    do {
        let provider = try ProviderRegistry.standard.resolve(settings, publicURL: "https://app.example")
        return SignInServer(
            options: SignInServer.Options(
                publicURL: "https://app.example", secret: Secret("fuzz-secret-0123456789abcdef-0123456789"),
                rateLimits: nil),
            providers: [provider], stores: .memory(clock: clock), httpClient: FixedKeyServer(), clock: clock)
    } catch {
        fatalError("the fuzz server does not start: \(error)")
    }
}()

/// A nonce issued by the server (the manual clock never lets it expire) and an ID token that carries it.
let (issuedNonce, signedToken): (String, String) = {
    let response = blocking {
        await server.handle(
            HTTPServerRequest(
                method: "POST", path: "/auth/google/native/nonce", headers: HTTPHeaders(), remoteAddress: "127.0.0.1"))
    }
    guard response.status == 200, let json = try? JSONValue.parse(response.body),
        let nonce = json.objectValue?["nonce"]?.stringValue
    else {
        fatalError("the fuzz server issued no nonce: \(response.status)")
    }
    let now = FixedKeys.now.timeIntervalSince1970
    let claims: [String: JSONValue] = [
        "iss": .string("https://accounts.google.com"), "aud": .string(webClient), "azp": .string(nativeClient),
        "sub": .string("fuzz-native-subject"), "iat": .integer(Int64(now)), "exp": .integer(Int64(now) + 600),
        "nonce": .string(nonce), "email": .string("native@fuzz.example"), "email_verified": .bool(true),
    ]
    do {
        return (nonce, try JWT.sign(claims: claims, key: FixedKeys.rsa, algorithm: .rs256))
    } catch {
        fatalError("the fuzz token does not sign: \(error)")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNativeSignIn(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    var body = bytes(data, count)
    if let text = String(bytes: body, encoding: .utf8), text.contains("@") {
        body = Array(
            text.replacingOccurrences(of: "@NONCE@", with: issuedNonce)
                .replacingOccurrences(of: "@ID_TOKEN@", with: signedToken).utf8)
    }
    var headers = HTTPHeaders()
    headers["Content-Type"] = "application/json"
    let request = HTTPServerRequest(
        method: "POST", path: "/auth/google/native", headers: headers, body: body, remoteAddress: "127.0.0.1")
    let response = blocking { await server.handle(request) }
    guard response.status == 200 || (400...409).contains(response.status) || response.status == 413 else {
        fatalError("a native sign-in body was answered \(response.status)")
    }
    return 0
}
