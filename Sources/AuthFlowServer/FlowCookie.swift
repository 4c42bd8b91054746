import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// The flow cookies of one browser: each sign-in in progress carries its `FlowRecord` sealed in a
/// cookie of its own (``CookiePolicy/flowCookieName(state:provider:createdAt:)``), so starting a sign-in stores
/// nothing and several sign-ins (two tabs, or a login then a link) run side by side.
///
/// At most ``maximumLive`` flow cookies live per browser: a new start clears the oldest beyond that, by the
/// provider and age their names say, without opening any.
struct FlowCookie: Sendable {
    /// The most flow cookies a browser keeps at once.
    static let maximumLive = 4
    /// The most flow cookies of a request looked at when choosing which to drop.
    static let maximumExamined = 16

    let seal: FlowRecordSeal
    let policy: CookiePolicy

    /// The name of `record`'s flow cookie.
    func name(of record: FlowRecord) -> String {
        policy.flowCookieName(state: record.state, provider: record.provider, createdAt: record.createdAt)
    }

    /// `Set-Cookie` for `record`, living `lifetime` seconds.
    func setCookie(for record: FlowRecord, lifetime: Double) throws(ServerError) -> String {
        let name = name(of: record)
        do throws(JOSEError) {
            let value = try seal.seal(record, cookieName: name)
            return policy.flowCookie(name: name, value: value, maxAge: max(1, Int(lifetime.rounded(.down))))
        } catch {
            throw ServerError(
                .flowCookieUnavailable,
                "expected to seal the sign-in into its flow cookie, found \(error.code.rawValue)", status: 500)
        }
    }

    /// The record of the sign-in with `provider` whose state is `state`, from the request's flow cookie for it;
    /// `nil` when the request has none or it does not open (another secret, another name, another provider,
    /// altered).
    ///
    /// - Throws: ``ServerError`` `duplicate_cookie` (400) when the request carries two cookies for that sign-in
    ///   (one name twice, or two names that differ only in their time).
    func record(in request: HTTPServerRequest, state: String, provider: String) throws(ServerError) -> FlowRecord? {
        guard let (name, value) = try cookie(in: request, state: state, provider: provider) else { return nil }
        return seal.open(value, cookieName: name, provider: provider)
    }

    /// The name and value of the request's flow cookie for the sign-in with `provider` whose state is `state`.
    ///
    /// - Throws: ``ServerError`` `duplicate_cookie` (400) when there are two.
    func cookie(in request: HTTPServerRequest, state: String, provider: String) throws(ServerError)
        -> (name: String, value: String)?
    {
        guard !state.isEmpty, state.utf8.count <= 512 else { return nil }
        let stem = policy.flowCookieStem(state: state, provider: provider)
        var found: (name: String, value: String)?
        var count = 0
        for name in Set(request.cookieNames()) where name.hasPrefix(stem) {
            for value in request.cookieValues(name) {
                count += 1
                found = (name, value)
            }
        }
        guard count <= 1 else {
            throw ServerError(
                .duplicateCookie,
                "expected at most one flow cookie for this sign-in (\(stem)…), found \(count) (clear this site's cookies)",
                status: 400)
        }
        return found
    }

    /// The refusal's message when the browser sent the flow cookie named for the callback's state but it did
    /// not open: most often an instance with another `server.secret` sealed it.
    static let unopenedMessage =
        "expected the flow cookie of the browser that began this sign-in, found one that does not open here "
        + "(sealed under another server.secret, not in server.previous_secrets here, as by an instance with a "
        + "different secret or another serve --sandbox, or for another provider's callback, or altered)"

    /// Whether the request carries a flow cookie named for `state` and `provider`, whether or not it opens.
    func isPresent(in request: HTTPServerRequest, state: String, provider: String) -> Bool {
        guard !state.isEmpty, state.utf8.count <= 512 else { return false }
        let stem = policy.flowCookieStem(state: state, provider: provider)
        return request.cookieNames().contains { $0.hasPrefix(stem) }
    }

    /// A flow cookie of a request, as its name describes it (nothing of it trusted until it opens).
    struct Held: Sendable {
        let name: String
        /// The provider the name says; `nil` when the name is not of the flow cookie form.
        let provider: String?
        /// The start time the name says, in seconds since 1970; `Int64.min` when the name is not of the form.
        let createdAt: Int64
    }

    /// The request's flow cookies (each name once, at most ``maximumExamined`` of them first in name order, then
    /// the others), read from their names in one pass over the `Cookie` headers.
    func held(in request: HTTPServerRequest) -> (examined: [Held], others: [String]) {
        // A set: a request may carry hundreds of cookie names, and each is looked at once.
        var names = Array(Set(request.cookieNames().filter { $0.hasPrefix(policy.flowCookiePrefix) }))
        names.sort()
        let examined = names.prefix(Self.maximumExamined).map { name in
            let parts = policy.flowCookieParts(name)
            return Held(name: name, provider: parts?.provider, createdAt: parts?.createdAt ?? .min)
        }
        return (examined, Array(names.dropFirst(Self.maximumExamined)))
    }

    /// The record of this browser's newest flow cookie for `provider` that opens, trying the newest first (by
    /// the time its name says); `nil` when there is none.
    func newestRecord(in request: HTTPServerRequest, provider: String) -> FlowRecord? {
        newestRecord(in: request, held: held(in: request).examined, provider: provider)
    }

    /// ``newestRecord(in:provider:)`` over the request's flow cookies `held` read already.
    func newestRecord(in request: HTTPServerRequest, held: [Held], provider: String) -> FlowRecord? {
        var candidates = held.filter { $0.provider == provider }
        candidates.sort { ($0.createdAt, $0.name) > ($1.createdAt, $1.name) }
        for candidate in candidates {
            let values = request.cookieValues(candidate.name)
            guard values.count == 1,
                let record = seal.open(values[0], cookieName: candidate.name, provider: provider)
            else { continue }
            return record
        }
        return nil
    }

    /// `Set-Cookie` headers clearing this browser's oldest flow cookies, so that with one more the browser
    /// holds at most ``maximumLive``, by the age their names say (no cookie is opened). Cookies whose name is
    /// not a flow cookie name for one of `providers` go first.
    func evictions(in request: HTTPServerRequest, providers: [String]) -> [String] {
        evictions(held(in: request), providers: providers)
    }

    /// ``evictions(in:providers:)`` over the request's flow cookies read already.
    func evictions(_ held: (examined: [Held], others: [String]), providers: [String]) -> [String] {
        guard held.examined.count + held.others.count >= Self.maximumLive else { return [] }
        var dropped = held.others
        let keep = Self.maximumLive - 1
        // Oldest first; at one time, by name, so the choice does not depend on the order cookies came in.
        let oldestFirst = held.examined.map { cookie -> (name: String, createdAt: Int64) in
            let known = cookie.provider.map { providers.contains($0) } ?? false
            return (cookie.name, known ? cookie.createdAt : .min)
        }.sorted { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }
        dropped += oldestFirst.prefix(max(0, oldestFirst.count - keep)).map(\.name)
        return dropped.map { policy.clearedFlowCookie(name: $0) }
    }
}
