/// Limits how many child processes a test target runs at once, so tests that start processes do not starve the
/// timing-sensitive tests of other suites running alongside on a small machine.
public actor ProcessGate {
    /// The gate shared by every test of the process: two children at a time.
    public static let shared = ProcessGate(limit: 2)

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// A gate letting `limit` callers in at once.
    public init(limit: Int) { self.limit = limit }

    /// Waits until fewer than `limit` callers are in, then enters.
    public func enter() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Leaves, letting the longest waiter in.
    public func leave() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
