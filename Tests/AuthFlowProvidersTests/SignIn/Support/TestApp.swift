import AuthFlow
import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Synchronization

/// The relying party's callback endpoint on a real loopback listener: `GET` or `POST
/// /auth/{name}/callback` completes the sign-in with the core `SignIn` driver, the browser binding read
/// from the flow cookie, and records the outcome. The browser gets back the outcome's index.
final class TestApp: Sendable {
    static let cookieName = "af_flow"
    static let secret = Array("end-to-end-test-app-secret-0123456789".utf8)

    /// The flow cookie value carrying `record`.
    static func flowCookie(_ record: FlowRecord) throws -> String {
        try FlowRecordSeal(secret: secret, random: SystemRandom()).seal(record, cookieName: cookieName)
    }

    /// The record in the request's flow cookie, for `provider`.
    static func flowRecord(_ request: HTTPServerRequest, provider: String) -> FlowRecord? {
        (try? FlowRecordSeal(secret: secret, random: SystemRandom()))?.open(
            request.cookies()[cookieName], cookieName: cookieName, provider: provider)
    }

    /// One call of `onUnverifiedProfile`, with how many token requests the sandbox had seen at that moment.
    struct ProfileCall: Sendable {
        let profile: UnverifiedProfile
        let tokenRequestsBefore: Int
    }

    final class State: Sendable {
        let signIn = Mutex<SignIn?>(nil)
        let outcomes = Mutex<[Result<SignInResult, SignInError>]>([])
        let profiles = Mutex<[ProfileCall]>([])
    }

    let server: HTTPServer
    let state: State
    let baseURL: String

    init(sandbox: SandboxIdentityProvider) throws {
        let state = State()
        server = HTTPServer(configuration: .init()) { request in
            await Self.handle(request, state: state, sandbox: sandbox)
        }
        baseURL = "http://127.0.0.1:\(try server.start())"
        self.state = state
    }

    func install(_ signIn: SignIn) { state.signIn.withLock { $0 = signIn } }

    func stop() async { await server.stop() }

    func callbackURL(_ provider: String) -> String { baseURL + "/auth/\(provider)/callback" }

    func outcome(_ index: Int) -> Result<SignInResult, SignInError>? {
        state.outcomes.withLock { $0.indices.contains(index) ? $0[index] : nil }
    }

    var profileCalls: [ProfileCall] { state.profiles.withLock { $0 } }

    static func tokenRequests(_ sandbox: SandboxIdentityProvider) -> Int {
        SandboxProvider.allCases.reduce(0) { $0 + sandbox.requestCounts(for: $1).token }
    }

    static func handle(_ request: HTTPServerRequest, state: State, sandbox: SandboxIdentityProvider) async
        -> HTTPServerResponse
    {
        let segments = request.path.split(separator: "/")
        guard segments.count == 3, segments[0] == "auth", segments[2] == "callback",
            let signIn = state.signIn.withLock({ $0 })
        else { return .error("not_found", message: "no such route", status: 404) }
        let method: CallbackMethod
        let pairs: [(String, String)]
        switch request.method {
        case "GET":
            method = .get
            pairs = request.query
        case "POST":
            method = .post
            guard let fields = try? request.formFields() else {
                return .error("invalid_request", message: "expected a form body", status: 400)
            }
            pairs = fields
        default:
            return .error("method_not_allowed", message: "GET or POST", status: 405)
        }
        let outcome: Result<SignInResult, SignInError>
        do throws(SignInError) {
            outcome = .success(
                try await signIn.complete(
                    provider: String(segments[1]), method: method, parameters: CallbackParameters(pairs),
                    flowRecord: flowRecord(request, provider: String(segments[1]))
                ) { profile in
                    let before = tokenRequests(sandbox)
                    state.profiles.withLock { $0.append(ProfileCall(profile: profile, tokenRequestsBefore: before)) }
                })
        } catch {
            outcome = .failure(error)
        }
        let index = state.outcomes.withLock { outcomes in
            outcomes.append(outcome)
            return outcomes.count - 1
        }
        return .json(#"{"outcome":\#(index)}"#)
    }
}
