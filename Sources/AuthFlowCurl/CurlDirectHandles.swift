import AuthFlowHTTP
internal import CCurl
import Synchronization

/// The curl easy handles of one client's transfers that an HTTP handler thread runs itself
/// (`CurlTransfer.perform()`), instead of handing them to the multi loop's thread and waiting to be woken: two
/// thread hand-overs fewer per request.
///
/// Each such transfer holds a slot of ``CurlDirectSlots`` (by default the process-wide ``CurlDirectSlots/shared``,
/// four slots for all clients), so blocking transfers tie up at most that many handler threads in the process,
/// however many clients and slow hosts there are (the executor starts other threads while they are blocked);
/// without a free slot a request goes to the multi loop. An idle handle keeps its open connections (and TLS
/// sessions), and the handle used last is lent first, so consecutive requests reuse one connection. A client
/// holds at most as many handles as there are slots, so their connections add at most that many to a host's
/// `maxConnectionsPerHost` of the multi loop.
final class CurlDirectHandles: Sendable {
    /// An easy handle, lent to one thread at a time.
    struct Handle: @unchecked Sendable {
        let easy: UnsafeMutableRawPointer
    }

    /// The slots these transfers take.
    let slots: CurlDirectSlots
    /// Handles waiting for their next transfer, the one given back last at the end.
    private let idle = Mutex<[Handle]>([])

    init(slots: CurlDirectSlots = .shared) {
        self.slots = slots
    }

    deinit {
        idle.withLock { idle in
            for handle in idle { curl_easy_cleanup(handle.easy) }
            idle = []
        }
    }

    /// A handle for one direct transfer, or `nil` when every slot is taken (or libcurl cannot make a handle):
    /// the request then goes to the multi loop.
    func borrow() -> Handle? {
        guard slots.take() else { return nil }
        if let kept = idle.withLock({ $0.popLast() }) { return kept }
        guard let easy = curl_easy_init() else {
            slots.release()
            return nil
        }
        return Handle(easy: easy)
    }

    /// Takes `handle` back once its transfer ended, with its open connections, and frees its slot.
    func giveBack(_ handle: Handle) {
        idle.withLock { $0.append(handle) }
        slots.release()
    }

    /// How many handles wait idle with their connections (every handle not lent right now).
    var idleCount: Int { idle.withLock { $0.count } }
}

/// How many transfers may run on handler threads at once, across the clients that share these slots.
final class CurlDirectSlots: Sendable {
    /// The slots every `CurlHTTPClient` uses: four for the whole process.
    static let shared = CurlDirectSlots(limit: 4)

    /// The most transfers at once.
    let limit: Int
    private let taken = Mutex(0)

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Takes a slot; `false` when all are taken.
    func take() -> Bool {
        taken.withLock { taken in
            guard taken < limit else { return false }
            taken += 1
            return true
        }
    }

    /// Frees a slot taken with ``take()``.
    func release() {
        taken.withLock { $0 -= 1 }
    }
}
