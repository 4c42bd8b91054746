import AuthFlow
import Foundation
import Synchronization

/// Where the audit trail goes (`server.audit_log`): a file opened for appending, or standard error.
package enum AuditDestination: Sendable, Hashable {
    /// Standard error (`server.audit_log: stderr`).
    case standardError
    /// A file, created with mode 0600 when missing, always appended to (`O_APPEND`), reopened on ``AuditTrail/reopen()``.
    case file(String)
}

/// An audit trail could not be opened.
package struct AuditTrailError: Error, Sendable, CustomStringConvertible {
    package let description: String
}

/// The audit trail's writer: events are queued without blocking (at most ``capacity`` lines waiting; past that an
/// event is dropped and counted) and written, as JSON lines, by a thread of its own, off the request path.
///
/// Inside a request (``SignInServer/respond(to:route:with:)``) the request's events gather in its ``Batch`` and are
/// queued together when the request is answered, so that a sign-in's events wake the writer once and go out in
/// one `write(2)`, whole lines in the order they were recorded. Outside a request (the administration commands)
/// an event is queued at once. The writer takes everything queued at each turn and writes it in one call.
///
/// A file is reopened when ``reopen()`` is called (on SIGHUP, after log rotation renamed it): lines queued after
/// the call land in the new file.
package final class AuditTrail: Sendable {
    /// The schema version each line carries in `version`.
    package static let schemaVersion = 1
    /// How many lines may wait for the writer.
    package let capacity: Int
    package let destination: AuditDestination
    private let clock: any WallClock
    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let onDrop: Mutex<(@Sendable () -> Void)?>

    private struct State {
        /// Whole lines waiting for the writer, and how many.
        var pending: [UInt8] = []
        var lines = 0
        /// The writer sleeps on `wake` and must be signalled for new work (otherwise it takes it at its next turn).
        var waiting = false
        var writing = false
        var reopen = false
        var stopping = false
        var dropped = 0
        var descriptor: Int32

        /// Whether the writer must be woken for work just added, once.
        mutating func wakesWriter() -> Bool {
            defer { waiting = false }
            return waiting
        }
    }

    /// Opens the destination (a file now, so a path that cannot be written fails at start) and starts the writer.
    ///
    /// - Throws: ``AuditTrailError`` when the file cannot be opened for appending.
    package init(destination: AuditDestination, clock: any WallClock = SystemClock(), capacity: Int = 4096)
        throws(AuditTrailError)
    {
        self.destination = destination
        self.clock = clock
        self.capacity = max(1, capacity)
        self.state = Mutex(State(descriptor: try Self.open(destination)))
        self.onDrop = Mutex(nil)
        // Named from inside: a name given before `start()` does not reach the system thread on Linux.
        let thread = Thread { [self] in
            Thread.current.name = "authflow-audit"
            Self.yieldOnWake()
            self.run()
        }
        thread.start()
    }

    /// Calls `body` for every event dropped because the queue was full (the `authflow_audit_dropped_total` metric).
    package func onDrop(_ body: @escaping @Sendable () -> Void) { onDrop.withLock { $0 = body } }

    /// How many events were dropped because the writer fell behind.
    package var dropped: Int { state.withLock { $0.dropped } }

    /// Records `event` with the time now and, inside a request, the request's id and client address: into the
    /// request's batch while the request runs, queued at once otherwise. Never waits: a full queue drops the
    /// event and counts it.
    package func record(_ event: AuditEvent) {
        let context = RequestContext.current
        let now = clock.now()
        if let batch = context?.auditBatch, batch.trail === self,
            batch.add(event, time: now, requestID: context?.requestID, clientAddress: context?.clientAddress)
        {
            return
        }
        var line: [UInt8] = []
        line.reserveCapacity(384)
        event.write(into: &line, time: now, requestID: context?.requestID, clientAddress: context?.clientAddress)
        enqueue(line, lines: 1)
    }

    /// Queues `bytes`, `lines` whole lines, for the writer: as many lines as the queue has room for, the rest
    /// dropped and counted (all of them once the trail is closing).
    fileprivate func enqueue(_ bytes: [UInt8], lines: Int) {
        let (dropped, wakes) = state.withLock { state -> (Int, Bool) in
            let room = state.stopping ? 0 : max(0, capacity - state.lines)
            let taken = min(lines, room)
            if taken == lines {
                state.pending.append(contentsOf: bytes)
            } else if taken > 0 {
                state.pending.append(contentsOf: bytes[..<Self.end(ofLines: taken, in: bytes)])
            }
            state.lines += taken
            state.dropped += lines - taken
            return (lines - taken, taken > 0 && state.wakesWriter())
        }
        if wakes { wake.signal() }
        if dropped > 0, let body = onDrop.withLock({ $0 }) {
            for _ in 0..<dropped { body() }
        }
    }

    /// The index just past the `count`th line of `bytes` (a line ends with a newline; JSON escapes those inside
    /// strings).
    private static func end(ofLines count: Int, in bytes: [UInt8]) -> Int {
        var seen = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            seen += 1
            if seen == count { return index + 1 }
        }
        return bytes.count
    }

    /// Reopens the file before the next line is written (after log rotation renamed it); nothing for standard error.
    package func reopen() {
        let wakes = state.withLock { state in
            state.reopen = true
            return state.wakesWriter()
        }
        if wakes { wake.signal() }
    }

    /// Whether every line queued so far has been written.
    package var isIdle: Bool { state.withLock { $0.pending.isEmpty && !$0.writing } }

    /// Writes what is queued, then stops the writer and closes the file. Later events are dropped.
    package func close() {
        let (first, wakes) = state.withLock { state -> (Bool, Bool) in
            guard !state.stopping else { return (false, false) }
            state.stopping = true
            return (true, state.wakesWriter())
        }
        guard first else { return }
        if wakes { wake.signal() }
        finished.wait()
    }

    /// What the writer takes at each turn.
    private struct Turn {
        var reopen: Bool
        var stopping: Bool
        var descriptor: Int32
    }

    private func run() {
        // Swapped with the queue at each turn, so neither buffer is allocated again once grown.
        var buffer: [UInt8] = []
        while true {
            let turn = state.withLock { state -> Turn? in
                guard !state.pending.isEmpty || state.reopen || state.stopping else {
                    state.waiting = true
                    return nil
                }
                swap(&state.pending, &buffer)
                let turn = Turn(reopen: state.reopen, stopping: state.stopping, descriptor: state.descriptor)
                state.lines = 0
                state.writing = !buffer.isEmpty
                state.reopen = false
                return turn
            }
            guard let turn else {
                wake.wait()
                continue
            }
            if write(&buffer, turn) { return }
        }
    }

    /// Does one turn of the writer: reopens the file when asked, writes `buffer` (then empties it), and closes the
    /// file when stopping. Returns whether the writer is done.
    private func write(_ buffer: inout [UInt8], _ turn: Turn) -> Bool {
        var current = turn.descriptor
        if turn.reopen, case .file = destination, let fresh = try? Self.open(destination) {
            if current > 2 { _ = Foundation.close(current) }
            current = fresh
            state.withLock { $0.descriptor = fresh }
        }
        if !buffer.isEmpty {
            StandardErrorWriter.write(buffer, to: current)
            buffer.removeAll(keepingCapacity: true)
            state.withLock { $0.writing = false }
        }
        guard turn.stopping else { return false }
        // Lines queued while this turn wrote were taken by it or dropped: `stopping` refuses new ones.
        if current > 2 { _ = Foundation.close(current) }
        finished.signal()
        return true
    }

    /// Asks the scheduler not to run the writer ahead of the thread that woke it (`SCHED_BATCH` on Linux): the
    /// request that queued lines goes on to send its answer, and the writer runs when that thread waits or on
    /// another core, with its fair share of time as before.
    private static func yieldOnWake() {
        #if os(Linux)
            // SCHED_BATCH of <linux/sched.h>, which the C module does not export.
            let batch: Int32 = 3
            var parameters = sched_param()
            _ = pthread_setschedparam(pthread_self(), batch, &parameters)
        #endif
    }

    private static func open(_ destination: AuditDestination) throws(AuditTrailError) -> Int32 {
        switch destination {
        case .standardError:
            return 2
        case .file(let path):
            let descriptor = Foundation.open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                let reason = String(cString: strerror(errno))
                throw AuditTrailError(
                    description: "cannot open server.audit_log '\(path)' for appending: \(reason)")
            }
            return descriptor
        }
    }
}

extension AuditTrail {
    /// The events one request records, gathered while it runs and queued together when it is answered
    /// (``SignInServer/respond(to:route:with:)`` calls ``finish()``): whole lines, in the order they were recorded.
    /// An event recorded after that (by a task that outlived the request) is queued at once.
    final class Batch: Sendable {
        let trail: AuditTrail
        private let state = Mutex(Lines())

        private struct Lines {
            var bytes: [UInt8] = []
            var count = 0
            var finished = false
        }

        init(trail: AuditTrail) { self.trail = trail }

        /// Appends `event`'s line; `false` once the batch is finished (the caller queues the event itself).
        func add(_ event: AuditEvent, time: Date, requestID: String?, clientAddress: String?) -> Bool {
            state.withLock { lines in
                guard !lines.finished else { return false }
                if lines.bytes.isEmpty { lines.bytes.reserveCapacity(1024) }
                event.write(into: &lines.bytes, time: time, requestID: requestID, clientAddress: clientAddress)
                lines.count += 1
                return true
            }
        }

        /// Queues the lines gathered so far for the writer, at once; later events are queued one by one.
        func finish() {
            let (bytes, count) = state.withLock { lines in
                lines.finished = true
                defer { lines.bytes = [] }
                return (lines.bytes, lines.count)
            }
            if count > 0 { trail.enqueue(bytes, lines: count) }
        }
    }
}
