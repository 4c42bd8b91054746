import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import Foundation
import FuzzSupport

@testable import AuthFlow

/// Callback query strings and form bodies, decoded as the server decodes them and fed to the sign-in state
/// machine of a started flow (Apple's form POST, Google's GET): every input ends in a typed refusal or a
/// code-exchange request, never a crash. The state in the seeds is the flow's, so the fuzzer starts past the
/// state check.
let location = SourceLocation(fileName: "fuzz.yaml", line: 1, column: 1, sourceLine: nil)
let now = Date(timeIntervalSince1970: 1_750_000_000)
let secrets = FlowSecrets(
    state: "state-0123456789abcdef0123456789abcdef012", nonce: "nonce-0123456789abcdef0123456789abcdef012",
    pkceVerifier: "verifier-0123456789abcdef0123456789abcdef01")
let binding = "fuzz-browser-binding"

let providers: [(ResolvedProvider, OAuthFlow.AuthorizationRedirect)] = {
    let settings = [
        ProviderSettings(
            name: "apple", type: "apple", clientID: "com.example.web", teamID: "ABCDE12345", keyID: "KEY1234567",
            privateKey: Secret(FixedKeys.ecPEM), location: location),
        ProviderSettings(
            name: "google", type: "google", clientID: "client-id", clientSecret: Secret("app-secret"),
            location: location),
    ]
    return settings.map { settings in
        do {
            let provider = try ProviderRegistry.standard.resolve(settings, publicURL: "https://app.example")
            var starter = OAuthFlow(provider: provider)
            let redirect = try starter.start(
                returnTo: "/", intent: .login, browserBinding: binding, secrets: secrets, now: now)
            return (provider, redirect)
        } catch {
            fatalError("the fuzz provider does not resolve: \(error)")
        }
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCallback(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    guard let selector = input.first else { return 0 }
    let (provider, redirect) = providers[Int(selector) % providers.count]
    let rest = Array(input.dropFirst())
    let fields: [(String, String)]
    if provider.callbackMethod == .post {
        var headers = HTTPHeaders()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        let request = HTTPServerRequest(
            method: "POST", path: "/auth/apple/callback", headers: headers, body: rest, remoteAddress: "127.0.0.1")
        guard let decoded = try? request.formFields() else { fatalError("a form body was refused by type") }
        fields = decoded
    } else {
        fields = FormURLEncoding.decode(String(decoding: rest, as: UTF8.self))
    }
    var flow = OAuthFlow(provider: provider)
    // The flow record is the one the browser's flow cookie carries; the state is then spent for the first time.
    guard
        case .markStateSpent = flow.callbackReceived(
            method: provider.callbackMethod, parameters: CallbackParameters(fields), flowRecord: redirect.record,
            now: now)
    else { return 0 }
    switch flow.stateSpent(true, now: now) {
    case .exchangeCode(let exchange):
        // Only a callback carrying this flow's state and one non-empty code gets this far.
        guard fields.contains(where: { $0.0 == "state" && $0.1 == secrets.state }) else {
            fatalError("a code exchange without the flow's state")
        }
        _ = exchange.request.url
    default:
        break
    }
    return 0
}
