public import AuthFlowHTTP
import AuthFlowJOSE

/// The browser binding of sign-ins: each sign-in in progress carries its ``FlowRecord`` sealed (AES-256-GCM,
/// ``FlowRecordSeal``) in a flow cookie of its own (named for its state, provider and start), so starting a sign-in stores nothing,
/// several sign-ins run side by side (two tabs, a login then a link), and a callback completes only in the
/// browser that began it: ``SignIn/complete(provider:method:parameters:flowRecord:onUnverifiedProfile:)``
/// refuses a callback without the record it opened (`browser_binding_mismatch`).
///
/// At a start, seal the record with ``setCookie(for:lifetime:)`` and clear ``evictions(in:providers:)``: at
/// most four flow cookies live per browser, the oldest by the age their names say dropped without
/// opening any. At the callback, open the one for the callback's state with ``record(in:state:provider:)``
/// and clear it afterwards (``clearedCookie(for:)``).
///
/// ```swift
/// let cookies = FlowCookies(seal: try FlowRecordSeal(secret: secret, random: SystemRandom()), secure: true)
/// let start = try await signIn.begin(provider: "apple", returnTo: "/", browserBinding: signIn.newBrowserBinding())
/// var redirect = HTTPServerResponse.redirect(to: start.redirectURL, status: 302)
/// for cleared in cookies.evictions(in: request, providers: ["apple"]) { redirect.addCookie(cleared) }
/// redirect.addCookie(try cookies.setCookie(for: start.record, lifetime: 600))
/// ```
public struct FlowCookies: Sendable {
    /// The most flow cookies a browser keeps at once.
    package static let maximumLive = 4
    /// The most flow cookies of a request looked at when choosing which to drop.
    package static let maximumExamined = 16

    /// The seal of the flow records.
    package let seal: FlowRecordSeal
    /// The cookies' names and attributes.
    package let naming: FlowCookieName

    /// Flow cookies sealed with `seal`; `secure` for an app served over https (`__Host-` names and `Secure`),
    /// `false` only for plain-http development on a loopback host.
    public init(seal: FlowRecordSeal, secure: Bool) {
        self.init(seal: seal, naming: FlowCookieName(secure: secure))
    }

    /// Flow cookies sealed with `seal` and named by `naming`.
    package init(seal: FlowRecordSeal, naming: FlowCookieName) {
        self.seal = seal
        self.naming = naming
    }

    /// `Set-Cookie` for `record`, living `lifetime` seconds (the flow's lifetime).
    ///
    /// - Throws: ``BrowserBindingError`` `flow_cookie_unavailable` (500) when the record cannot be sealed.
    public func setCookie(for record: FlowRecord, lifetime: Double) throws(BrowserBindingError) -> String {
        let name = naming.name(of: record)
        do throws(JOSEError) {
            let value = try seal.seal(record, cookieName: name)
            return naming.setCookie(name: name, value: value, maxAge: max(1, Int(lifetime.rounded(.down))))
        } catch {
            throw BrowserBindingError(
                .flowCookieUnavailable,
                "expected to seal the sign-in into its flow cookie, found \(error.code.rawValue)", statusHint: 500)
        }
    }

    /// The record of the sign-in with `provider` whose state is `state`, from the request's flow cookie for it;
    /// `nil` when the request has none or it does not open (another secret, another name, another provider,
    /// altered).
    ///
    /// - Throws: ``BrowserBindingError`` `duplicate_cookie` (400) when the request carries two cookies for that
    ///   sign-in (one name twice, or two names that differ only in their time).
    public func record(in request: HTTPServerRequest, state: String, provider: String) throws(BrowserBindingError)
        -> FlowRecord?
    {
        guard let (name, value) = try cookie(in: request, state: state, provider: provider) else { return nil }
        return seal.open(value, cookieName: name, provider: provider)
    }

    /// The name and value of the request's flow cookie for the sign-in with `provider` whose state is `state`.
    ///
    /// - Throws: ``BrowserBindingError`` `duplicate_cookie` (400) when there are two.
    package func cookie(in request: HTTPServerRequest, state: String, provider: String) throws(BrowserBindingError)
        -> (name: String, value: String)?
    {
        guard !state.isEmpty, state.utf8.count <= 512 else { return nil }
        let stem = naming.stem(state: state, provider: provider)
        var found: (name: String, value: String)?
        var count = 0
        for name in Set(request.cookieNames()) where name.hasPrefix(stem) {
            for value in request.cookieValues(name) {
                count += 1
                found = (name, value)
            }
        }
        guard count <= 1 else {
            throw BrowserBindingError(
                .duplicateCookie,
                "expected at most one flow cookie for this sign-in (\(stem)…), found \(count) (clear this site's cookies)",
                statusHint: 400)
        }
        return found
    }

    /// The `Set-Cookie` header value that clears `record`'s flow cookie, once its sign-in is done.
    public func clearedCookie(for record: FlowRecord) -> String {
        naming.clearedCookie(name: naming.name(of: record))
    }

    /// Whether the request carries a flow cookie named for `state` and `provider`, whether or not it opens.
    package func isPresent(in request: HTTPServerRequest, state: String, provider: String) -> Bool {
        guard !state.isEmpty, state.utf8.count <= 512 else { return false }
        let stem = naming.stem(state: state, provider: provider)
        return request.cookieNames().contains { $0.hasPrefix(stem) }
    }

    /// The refusal's message when the browser sent the flow cookie named for the callback's state but it did
    /// not open: most often an instance with another secret sealed it.
    package static let unopenedMessage =
        "expected the flow cookie of the browser that began this sign-in, found one that does not open here "
        + "(sealed under another server.secret, not in server.previous_secrets here, as by an instance with a "
        + "different secret or another serve --sandbox, or for another provider's callback, or altered)"

    /// A flow cookie of a request, as its name describes it (nothing of it trusted until it opens).
    package struct Held: Sendable, Hashable {
        /// The cookie's name.
        package let name: String
        /// The provider the name says; `nil` when the name is not of the flow cookie form.
        package let provider: String?
        /// The start time the name says, in seconds since 1970; `Int64.min` when the name is not of the form.
        package let createdAt: Int64
    }

    /// The request's flow cookies (each name once, at most ``maximumExamined`` of them first in name order, then
    /// the others), read from their names in one pass over the `Cookie` headers.
    package func held(in request: HTTPServerRequest) -> (examined: [Held], others: [String]) {
        // A set: a request may carry hundreds of cookie names, and each is looked at once.
        var names = Array(Set(request.cookieNames().filter { $0.hasPrefix(naming.prefix) }))
        names.sort()
        let examined = names.prefix(Self.maximumExamined).map { name in
            let parts = naming.parts(name)
            return Held(name: name, provider: parts?.provider, createdAt: parts?.createdAt ?? .min)
        }
        return (examined, Array(names.dropFirst(Self.maximumExamined)))
    }

    /// The record of this browser's newest flow cookie for `provider` that opens, trying the newest first (by
    /// the time its name says); `nil` when there is none.
    package func newestRecord(in request: HTTPServerRequest, provider: String) -> FlowRecord? {
        newestRecord(in: request, held: held(in: request).examined, provider: provider)
    }

    /// ``newestRecord(in:provider:)`` over the request's flow cookies `held` read already.
    package func newestRecord(in request: HTTPServerRequest, held: [Held], provider: String) -> FlowRecord? {
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
    /// holds at most four, by the age their names say (no cookie is opened). Cookies whose name is
    /// not a flow cookie name for one of `providers` go first.
    public func evictions(in request: HTTPServerRequest, providers: [String]) -> [String] {
        evictions(held(in: request), providers: providers)
    }

    /// ``evictions(in:providers:)`` over the request's flow cookies read already.
    package func evictions(_ held: (examined: [Held], others: [String]), providers: [String]) -> [String] {
        guard held.examined.count + held.others.count >= Self.maximumLive else { return [] }
        var dropped = held.others
        let keep = Self.maximumLive - 1
        // Oldest first; at one time, by name, so the choice does not depend on the order cookies came in.
        let oldestFirst = held.examined.map { cookie -> (name: String, createdAt: Int64) in
            let known = cookie.provider.map { providers.contains($0) } ?? false
            return (cookie.name, known ? cookie.createdAt : .min)
        }.sorted { ($0.createdAt, $0.name) < ($1.createdAt, $1.name) }
        dropped += oldestFirst.prefix(max(0, oldestFirst.count - keep)).map(\.name)
        return dropped.map { naming.clearedCookie(name: $0) }
    }
}
