internal import CCurl
import Synchronization

/// The curl easy handles of transfers that an HTTP handler thread runs itself (`CurlTransfer.perform()`),
/// instead of handing them to the multi loop's thread and waiting to be woken: two thread hand-overs fewer
/// per request.
///
/// At most ``limit`` such transfers run at once, so a slow host ties up at most that many handler threads
/// (the executor starts others while they are blocked); further requests go to the multi loop. An idle handle
/// keeps its open connections (and TLS sessions), and the handle used last is lent first, so consecutive
/// requests reuse one connection. The connections of these handles add at most ``limit`` to a host's
/// `maxConnectionsPerHost` of the multi loop.
final class CurlDirectHandles: Sendable {
    /// An easy handle, lent to one thread at a time.
    struct Handle: @unchecked Sendable {
        let easy: UnsafeMutableRawPointer
    }

    private struct State {
        var idle: [Handle] = []
        var lent = 0
    }

    /// The most transfers run directly at once.
    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    deinit {
        state.withLock { state in
            for handle in state.idle { curl_easy_cleanup(handle.easy) }
            state.idle = []
        }
    }

    /// A handle for one direct transfer, or `nil` when ``limit`` transfers run already (or libcurl cannot make
    /// one): the request then goes to the multi loop.
    func borrow() -> Handle? {
        let taken = state.withLock { state -> Handle?? in
            guard state.lent < limit else { return .none }
            state.lent += 1
            return .some(state.idle.popLast())
        }
        guard let taken else { return nil }
        if let handle = taken { return handle }
        guard let easy = curl_easy_init() else {
            state.withLock { $0.lent -= 1 }
            return nil
        }
        return Handle(easy: easy)
    }

    /// Takes `handle` back once its transfer ended, with its open connections.
    func giveBack(_ handle: Handle) {
        state.withLock { state in
            state.lent -= 1
            state.idle.append(handle)
        }
    }

    /// How many handles are lent now, and how many wait idle with their connections.
    var counts: (lent: Int, idle: Int) { state.withLock { ($0.lent, $0.idle.count) } }
}
