import Synchronization

/// The connections of a store backend's pool, handed to operations one at a time, waited for without holding a
/// thread.
///
/// An operation takes a slot before it runs on a thread that may block, and gives it back afterwards. While
/// every slot is taken, ``acquire(until:)`` suspends the calling task (no thread waits with it) until a slot is
/// given back, oldest waiter first, or until its deadline. A stalled server therefore holds only as many threads
/// as the pool has connections; the operations waiting behind them hold none, so the threads other stores need
/// stay free (a Redis-only route answers while PostgreSQL is stalled).
package final class ConnectionSlots: Sendable {
    private struct Waiter {
        let token: UInt64
        let continuation: CheckedContinuation<Bool, Never>
        /// Ends the wait at the deadline; cancelled when a slot comes first.
        var timer: Task<Void, Never>?
    }

    private struct State {
        var free: Int
        /// Oldest first.
        var waiters: [Waiter] = []
        var nextToken: UInt64 = 0
    }

    private let state: Mutex<State>

    /// `count` slots (at least one), all free.
    package init(count: Int) {
        state = Mutex(State(free: max(1, count)))
    }

    /// How many operations wait for a slot now (for tests and diagnostics).
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Takes a slot, waiting while none is free (suspended, on no thread) until `deadline`; `false` when none was
    /// given back by then. A `true` answer must be matched by one ``release()``.
    package func acquire(until deadline: ContinuousClock.Instant) async -> Bool {
        let atOnce = state.withLock { state -> Bool in
            guard state.free > 0 else { return false }
            state.free -= 1
            return true
        }
        if atOnce { return true }
        guard ContinuousClock.now < deadline else { return false }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let token = state.withLock { state -> UInt64? in
                // A slot given back since the first look is taken here.
                guard state.free == 0 else {
                    state.free -= 1
                    return nil
                }
                state.nextToken &+= 1
                state.waiters.append(Waiter(token: state.nextToken, continuation: continuation))
                return state.nextToken
            }
            guard let token else {
                continuation.resume(returning: true)
                return
            }
            let timer = Task { [self] in
                try? await Task.sleep(until: deadline, clock: .continuous)
                expire(token)
            }
            let granted = state.withLock { state -> Bool in
                guard let index = state.waiters.firstIndex(where: { $0.token == token }) else { return true }
                state.waiters[index].timer = timer
                return false
            }
            // Already granted (or expired) before the timer was noted: it has nothing left to end.
            if granted { timer.cancel() }
        }
    }

    /// Gives a slot back: to the oldest waiter when one waits, otherwise to the free ones.
    package func release() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiters.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        guard let next else { return }
        next.timer?.cancel()
        next.continuation.resume(returning: true)
    }

    /// Ends the wait of `token` at its deadline, unless it was given a slot already.
    private func expire(_ token: UInt64) {
        let expired = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.token == token }) else { return nil }
            return state.waiters.remove(at: index)
        }
        expired?.continuation.resume(returning: false)
    }
}
