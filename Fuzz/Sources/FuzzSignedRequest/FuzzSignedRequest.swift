import AuthFlow
import AuthFlowHTTP
import AuthFlowProviders
import AuthFlowServer
import Foundation
import FuzzSupport

// The harness checks an accepted body on its own with the package's base64url decoder (`package`: reached with
// `@testable`, as scripts/fuzz.sh builds with -enable-testing).
@testable import AuthFlowJOSE

/// Facebook's callback bodies (`signed_request=…`) through the server's data-deletion route and, for the same
/// body, the deauthorize route (both run the plugin's `signed_request` parser). Every answer is 200 or 400, never
/// 500; a body the data-deletion route accepts holds one `signed_request` that the harness verifies on its own (the
/// app secret's HMAC over the payload, a user, an age within bounds); and a signed request applied at one endpoint
/// is never applied again at the other.
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

/// How old a signed request may be (the plugin's bound, docs/providers.md, "Facebook").
let maximumAge: Double = 600

/// Whether `text` is `base64url(HMAC-SHA256(app secret, payload)) "." base64url(payload)` whose payload names a
/// user and was issued within `maximumAge` of now: what the server must have checked before accepting it.
func verifiesOnItsOwn(_ text: String) -> Bool {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    func decode(_ part: Substring) -> [UInt8]? {
        var unpadded = part
        while unpadded.hasSuffix("=") { unpadded = unpadded.dropLast() }
        return try? Base64URL.decode(unpadded)
    }
    guard parts.count == 2, let signature = decode(parts[0]), let payload = decode(parts[1]),
        signature == Digest.hmacSHA256(key: Array(appSecret.utf8), message: Array(parts[1].utf8)),
        let json = try? JSONValue.parse(payload), let user = json["user_id"]?.stringValue, !user.isEmpty,
        let issued = json["issued_at"]?.int64Value
    else { return false }
    return abs(FixedKeys.now.timeIntervalSince1970 - Double(issued)) <= maximumAge
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedRequest(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = bytes(data, count)
    let fields = FormURLEncoding.decode(String(decoding: body, as: UTF8.self))
    let signedRequests = fields.filter { $0.0 == "signed_request" }.map(\.1)
    let deletion = post("/auth/facebook/data-deletion", body)
    let deauthorize = post("/auth/facebook/deauthorize", body)
    if deletion.status == 200 {
        guard signedRequests.count == 1, verifiesOnItsOwn(signedRequests[0]) else {
            fatalError("data-deletion accepted a body without one signed_request of the app secret, a user and an age")
        }
        // The data deletion applied (or had applied) this signed request: deauthorize must not apply it again.
        guard deauthorize.status == 200,
            (try? JSONValue.parse(deauthorize.body))?["applied"] == .bool(false)
        else { fatalError("a signed_request applied at data-deletion was applied again at deauthorize") }
    }
    return 0
}
