import Synchronization

/// A one-way gate for stand-ins: whoever waits is held until the test opens it, then every waiter (and any
/// later one) goes on at once. A stand-in that must hold something open (a slow handler, a provider that
/// never answers) waits on a latch the test opens, never for a duration.
///
/// Waiting suspends the task without holding a thread. A test opens its latches before it ends (a `defer`),
/// so nothing stays suspended.
public final class Latch: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Whether the latch has been opened.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// How many tasks wait at the latch now.
    public var waiting: Int { state.withLock { $0.waiters.count } }

    /// Suspends until the latch is opened (returns at once when it already is).
    public func wait() async {
        await withCheckedContinuation { continuation in
            let proceed = state.withLock { state -> Bool in
                guard !state.isOpen else { return true }
                state.waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    /// Opens the latch: every waiter goes on, and later waits return at once. Opening twice does nothing.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
