import AuthFlowHTTP
internal import CMicroHTTPD
import Foundation
import Synchronization

/// What libmicrohttpd lacks for a server one client cannot exhaust: a per-client-address connection cap
/// that exempts trusted proxies, and a deadline for a whole request (libmicrohttpd's own timeout only
/// counts silence, so a client trickling a header byte every few seconds would hold its connection forever).
///
/// libmicrohttpd reports every connection it opens and closes; the table counts them per client address
/// and remembers since when each connection has been waiting for a request to complete. A sweeper thread
/// shuts down (`shutdown(2)`) the sockets past the deadline, under the table's lock, before libmicrohttpd
/// can have closed and reused the descriptor (it reports the close first), and libmicrohttpd then sees the
/// end of the stream and closes the connection itself.
final class MicroHTTPDConnectionTable: @unchecked Sendable {
    /// One open connection; fields are read and written under the table's lock only.
    final class Entry: @unchecked Sendable {
        /// The peer's canonical address.
        let client: String
        /// What the per-client cap counts: the address, or its IPv6 network (``clientKey(_:)``).
        let key: String
        let exempt: Bool
        let socket: Int32
        /// When the connection became ready for its current request; `nil` while a handler answers.
        var waitingSince: ContinuousClock.Instant?

        init(client: String, key: String, exempt: Bool, socket: Int32, waitingSince: ContinuousClock.Instant) {
            self.client = client
            self.key = key
            self.exempt = exempt
            self.socket = socket
            self.waitingSince = waitingSince
        }
    }

    private struct State {
        var perClient: [String: Int] = [:]
        var open: [ObjectIdentifier: Entry] = [:]
        var stopped = false
    }

    private let perClientLimit: Int
    private let trusted: [IPNetwork]
    private let requestTimeout: Int
    private let ipv6Prefix: Int
    private let state = Mutex(State())

    init(perClientLimit: Int, trusted: [IPNetwork], requestTimeout: Int, ipv6Prefix: Int = 64) {
        self.ipv6Prefix = ipv6Prefix
        self.perClientLimit = perClientLimit
        self.trusted = trusted
        self.requestTimeout = requestTimeout
    }

    /// What the cap counts for `client`: its canonical address, an IPv6 one grouped by its network.
    func clientKey(_ client: String) -> String {
        IPNetwork.clientKey(client, ipv6Prefix: ipv6Prefix)
    }

    /// Whether a new connection from `client` stays under its address's cap (trusted proxies always do).
    func mayAccept(_ client: String) -> Bool {
        if ForwardedClient.isTrusted(client, trusted) { return true }
        let key = clientKey(client)
        return state.withLock { ($0.perClient[key] ?? 0) < perClientLimit }
    }

    /// Records a connection libmicrohttpd opened.
    func opened(client: String, socket: Int32) -> Entry {
        let canonical = IPNetwork.canonical(client) ?? client
        let entry = Entry(
            client: canonical, key: clientKey(canonical), exempt: ForwardedClient.isTrusted(canonical, trusted),
            socket: socket, waitingSince: .now)
        state.withLock { state in
            state.open[ObjectIdentifier(entry)] = entry
            if !entry.exempt { state.perClient[entry.key, default: 0] += 1 }
        }
        return entry
    }

    /// Records a connection libmicrohttpd is closing (before it closes the socket).
    func closed(_ entry: Entry) {
        state.withLock { state in
            guard state.open.removeValue(forKey: ObjectIdentifier(entry)) != nil, !entry.exempt else { return }
            let remaining = (state.perClient[entry.key] ?? 1) - 1
            state.perClient[entry.key] = remaining > 0 ? remaining : nil
        }
    }

    /// The request is complete (headers and body): the deadline stops while the handler answers.
    func requestReceived(_ entry: Entry) {
        state.withLock { _ in entry.waitingSince = nil }
    }

    /// The response went out: the deadline for the next request on this connection starts.
    func responseSent(_ entry: Entry) {
        state.withLock { _ in entry.waitingSince = .now }
    }

    /// How many connections are open.
    var openCount: Int { state.withLock { $0.open.count } }

    /// Starts the sweeper thread; it ends after ``stop()``.
    func startSweeper() {
        guard requestTimeout > 0 else { return }
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                Thread.sleep(forTimeInterval: 0.25)
                sweep()
            }
        }
        thread.name = "authflow-http-deadline"
        thread.start()
    }

    /// Stops the sweeper.
    func stop() {
        state.withLock { $0.stopped = true }
    }

    private func sweep() {
        let limit = ContinuousClock.Instant.now - .seconds(requestTimeout)
        state.withLock { state in
            for entry in state.open.values {
                guard let since = entry.waitingSince, since < limit else { continue }
                entry.waitingSince = nil
                _ = af_shutdown_socket(entry.socket)
            }
        }
    }
}
