import AuthFlow
import AuthFlowFacebook
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import AuthFlowServer
import Foundation
import FuzzSupport

/// Facebook's callback bodies (`signed_request=…`): the parser on its own, then the body through the server's
/// data-deletion route and, for the same body, the deauthorize route. A request that verifies has a user, an
/// age within bounds and the app secret's HMAC over its payload; every answer is 200 or 400, never 500; and
/// a signed request applied at one endpoint is never applied again at the other.
let appSecret = "fuzz-app-secret"

/// Facebook's callbacks make no outgoing request.
struct NoNetwork: HTTPClient {
    struct Refused: Error {}
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse { throw Refused() }
}

let server: SignInServer = {
    let clock = FixedClock(FixedKeys.now)
    let settings = ProviderSettings(
        name: "facebook", type: "facebook", clientID: "1234567890", clientSecret: Secret(appSecret),
        location: SourceLocation(fileName: "fuzz.yaml", line: 1, column: 1, sourceLine: nil))
    do {
        let provider = try ProviderRegistry.standard.resolve(settings, publicURL: "https://app.example")
        return SignInServer(
            options: SignInServer.Options(
                publicURL: "https://app.example", secret: Secret("fuzz-secret-0123456789abcdef-0123456789")),
            providers: [provider], stores: .memory(clock: clock), httpClient: NoNetwork(), clock: clock)
    } catch {
        fatalError("the fuzz server does not start: \(error)")
    }
}()

func post(_ path: String, _ body: [UInt8]) -> HTTPServerResponse {
    var headers = HTTPHeaders()
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    let request = HTTPServerRequest(
        method: "POST", path: path, headers: headers, body: body, remoteAddress: "127.0.0.1")
    let response = blocking { await server.handle(request) }
    guard response.status == 200 || response.status == 400 else {
        fatalError("\(path) answered \(response.status)")
    }
    return response
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedRequest(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = bytes(data, count)
    let fields = FormURLEncoding.decode(String(decoding: body, as: UTF8.self))
    let signedRequests = fields.filter { $0.0 == "signed_request" }.map(\.1)
    var verified: FacebookSignedRequest?
    for text in signedRequests.prefix(1) {
        do throws(FacebookSignedRequest.Failure) {
            let request = try FacebookSignedRequest(text, appSecret: appSecret, now: FixedKeys.now)
            let payload = text.split(separator: ".", omittingEmptySubsequences: false)[1]
            guard request.signature == Digest.hmacSHA256(key: Array(appSecret.utf8), message: Array(payload.utf8)),
                !request.userID.isEmpty,
                abs(FixedKeys.now.timeIntervalSince(request.issuedAt)) <= FacebookSignedRequest.maximumAge
            else { fatalError("a signed_request verified without its HMAC, user or age") }
            verified = request
        } catch {
            guard !error.message.isEmpty else { fatalError("a refusal without a message") }
        }
    }
    let deletion = post("/auth/facebook/data-deletion", body)
    let deauthorize = post("/auth/facebook/deauthorize", body)
    if verified != nil, signedRequests.count == 1, deletion.status == 200 {
        // The data deletion applied (or had applied) this signed request: deauthorize must not apply it again.
        guard deauthorize.status == 200,
            (try? JSONValue.parse(deauthorize.body))?["applied"] == .bool(false)
        else { fatalError("a signed_request applied at data-deletion was applied again at deauthorize") }
    }
    return 0
}
