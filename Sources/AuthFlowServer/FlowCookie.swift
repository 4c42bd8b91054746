import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// The flow cookies of one browser: each sign-in in progress carries its `FlowRecord` sealed in a
/// cookie of its own (``CookiePolicy/flowCookieName(state:)``), so starting a sign-in stores nothing and
/// several sign-ins (two tabs, or a login then a link) run side by side.
///
/// At most ``maximumLive`` flow cookies live per browser: a new start clears the oldest beyond that.
struct FlowCookie: Sendable {
    /// The most flow cookies a browser keeps at once.
    static let maximumLive = 4
    /// The most flow cookies of a request looked at when choosing which to drop.
    static let maximumExamined = 16

    let seal: FlowRecordSeal
    let policy: CookiePolicy

    /// `Set-Cookie` for `record`, living `lifetime` seconds.
    func setCookie(for record: FlowRecord, lifetime: Double) throws(ServerError) -> String {
        let name = policy.flowCookieName(state: record.state)
        do throws(JOSEError) {
            let value = try seal.seal(record, cookieName: name)
            return policy.flowCookie(name: name, value: value, maxAge: max(1, Int(lifetime.rounded(.down))))
        } catch {
            throw ServerError(
                .init(rawValue: "flow_cookie_unavailable"),
                "expected to seal the sign-in into its flow cookie, found \(error.code.rawValue)", status: 500)
        }
    }

    /// The record of the sign-in whose state is `state`, from the request's flow cookie for it; `nil` when
    /// the request has none or it does not open (another secret, another name, another provider, altered).
    ///
    /// - Throws: ``ServerError`` `duplicate_cookie` (400) when the request carries that cookie name twice.
    func record(in request: HTTPServerRequest, state: String, provider: String) throws(ServerError) -> FlowRecord? {
        guard !state.isEmpty, state.utf8.count <= 512 else { return nil }
        let name = policy.flowCookieName(state: state)
        let value = try SignInServer.singleCookie(request, name: name)
        return seal.open(value, cookieName: name, provider: provider)
    }

    /// The refusal's message when the browser sent the flow cookie named for the callback's state but it did
    /// not open: most often an instance with another `server.secret` sealed it.
    static let unopenedMessage =
        "expected the flow cookie of the browser that began this sign-in, found one that does not open here "
        + "(sealed under another server.secret, not in server.previous_secrets here, as by an instance with a "
        + "different secret or another serve --sandbox, or for another provider's callback, or altered)"

    /// Whether the request carries a flow cookie named for `state`, whether or not it opens.
    func isPresent(in request: HTTPServerRequest, state: String) -> Bool {
        guard !state.isEmpty, state.utf8.count <= 512 else { return false }
        return !request.cookieValues(policy.flowCookieName(state: state)).isEmpty
    }

    /// The records of this browser's other flow cookies for `provider` (at most ``maximumLive``), newest first.
    func records(in request: HTTPServerRequest, provider: String) -> [FlowRecord] {
        let cookies = request.cookies()
        let names = Set(request.cookieNames().filter { $0.hasPrefix(policy.flowCookiePrefix) })
        return names.sorted().prefix(Self.maximumExamined)
            .compactMap { seal.open(cookies[$0], cookieName: $0, provider: provider) }
            .sorted { $0.createdAt > $1.createdAt }
            .prefix(Self.maximumLive).map { $0 }
    }

    /// `Set-Cookie` headers clearing this browser's oldest flow cookies, so that with one more the browser
    /// holds at most ``maximumLive``. Cookies that do not open for any of `providers` go first.
    func evictions(in request: HTTPServerRequest, providers: [String]) -> [String] {
        let names = Set(request.cookieNames().filter { $0.hasPrefix(policy.flowCookiePrefix) })
        guard names.count >= Self.maximumLive else { return [] }
        let cookies = request.cookies()
        var dated: [(name: String, createdAt: Double)] = []
        for name in names.sorted().prefix(Self.maximumExamined) {
            let opened = providers.lazy.compactMap { seal.open(cookies[name], cookieName: name, provider: $0) }.first
            dated.append((name, opened?.createdAt.timeIntervalSince1970 ?? -.infinity))
        }
        let examined = Set(dated.map(\.name))
        var dropped = names.subtracting(examined).sorted()
        let keep = Self.maximumLive - 1
        let oldestFirst = dated.sorted { $0.createdAt < $1.createdAt }.map(\.name)
        dropped += oldestFirst.prefix(max(0, oldestFirst.count - keep))
        return dropped.map { policy.clearedFlowCookie(name: $0) }
    }
}
