internal import CPostgres
import Foundation
import Synchronization

/// Sends libpq cancel requests for statements that missed their deadline, each on a thread of its own, because
/// `PQcancel` connects to the server and waits for it to close the connection: a stalled server would hold
/// the caller. At most `limit` requests are in flight per database; beyond that a request is dropped (the
/// connection is given up either way, and the server's `statement_timeout` ends the statement too).
final class PostgresCancellation: Sendable {
    private let inFlight = Mutex(0)
    private let limit: Int

    init(limit: Int = 2) {
        self.limit = max(1, limit)
    }

    /// Takes ownership of `cancel` (from `PQgetCancel`) and frees it.
    func cancel(_ cancel: OpaquePointer) {
        let request = Request(cancel)
        let admitted = inFlight.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard admitted else { return }
        let thread = Thread { [self] in
            request.send()
            inFlight.withLock { $0 -= 1 }
        }
        thread.start()
    }

    /// A `PGcancel`, freed when the request is done with it; used by one thread at a time.
    private final class Request: @unchecked Sendable {
        private let cancel: OpaquePointer

        init(_ cancel: OpaquePointer) { self.cancel = cancel }

        deinit { PQfreeCancel(cancel) }

        func send() {
            var message = [CChar](repeating: 0, count: 256)
            _ = PQcancel(cancel, &message, Int32(message.count))
        }
    }
}
