import AuthFlow
import AuthFlowHTTP

/// The server's flow cookies: the public browser-binding kit (``FlowCookies``) named by the server's
/// ``CookiePolicy``, with the kit's refusals as ``ServerError``s.
struct ServerFlowCookies: Sendable {
    /// The most flow cookies a browser keeps at once.
    static let maximumLive = FlowCookies.maximumLive
    /// The most flow cookies of a request looked at when choosing which to drop.
    static let maximumExamined = FlowCookies.maximumExamined
    /// The refusal's message when the browser's flow cookie for the callback's state does not open.
    static let unopenedMessage = FlowCookies.unopenedMessage

    let kit: FlowCookies
    let policy: CookiePolicy

    init(seal: FlowRecordSeal, policy: CookiePolicy) {
        kit = FlowCookies(seal: seal, naming: policy.flowCookieNaming)
        self.policy = policy
    }

    /// The name of `record`'s flow cookie.
    func name(of record: FlowRecord) -> String { kit.naming.name(of: record) }

    /// `Set-Cookie` for `record`, living `lifetime` seconds.
    func setCookie(for record: FlowRecord, lifetime: Double) throws(ServerError) -> String {
        do throws(BrowserBindingError) {
            return try kit.setCookie(for: record, lifetime: lifetime)
        } catch {
            throw ServerError(error)
        }
    }

    /// ``FlowCookies/record(in:state:provider:)``; `duplicate_cookie` (400) as a ``ServerError``.
    func record(in request: HTTPServerRequest, state: String, provider: String) throws(ServerError) -> FlowRecord? {
        do throws(BrowserBindingError) {
            return try kit.record(in: request, state: state, provider: provider)
        } catch {
            throw ServerError(error)
        }
    }

    /// Whether the request carries a flow cookie named for `state` and `provider`, whether or not it opens.
    func isPresent(in request: HTTPServerRequest, state: String, provider: String) -> Bool {
        kit.isPresent(in: request, state: state, provider: provider)
    }

    /// The request's flow cookies, read from their names (``FlowCookies/held(in:)``).
    func held(in request: HTTPServerRequest) -> (examined: [FlowCookies.Held], others: [String]) {
        kit.held(in: request)
    }

    /// The record of this browser's newest flow cookie for `provider` that opens.
    func newestRecord(in request: HTTPServerRequest, provider: String) -> FlowRecord? {
        kit.newestRecord(in: request, provider: provider)
    }

    /// ``newestRecord(in:provider:)`` over the request's flow cookies `held` read already.
    func newestRecord(in request: HTTPServerRequest, held: [FlowCookies.Held], provider: String) -> FlowRecord? {
        kit.newestRecord(in: request, held: held, provider: provider)
    }

    /// `Set-Cookie` headers clearing this browser's oldest flow cookies (``FlowCookies/evictions(in:providers:)``).
    func evictions(in request: HTTPServerRequest, providers: [String]) -> [String] {
        kit.evictions(in: request, providers: providers)
    }

    /// ``evictions(in:providers:)`` over the request's flow cookies read already.
    func evictions(_ held: (examined: [FlowCookies.Held], others: [String]), providers: [String]) -> [String] {
        kit.evictions(held, providers: providers)
    }
}

extension ServerError {
    /// Wraps a browser-binding refusal: its code, message and status.
    init(_ error: BrowserBindingError) {
        self.init(Code(rawValue: error.code.rawValue), error.message, status: error.statusHint)
    }
}
