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

/// The audit trail's writer: events are queued without blocking (at most ``capacity`` waiting; past that an event
/// is dropped and counted) and written, one JSON line each, by a thread of its own, off the request path.
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
        var queue: [[UInt8]] = []
        var writing = false
        var reopen = false
        var stopping = false
        var dropped = 0
        var descriptor: Int32
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
        let thread = Thread { [self] in self.run() }
        thread.name = "authflow-audit"
        thread.start()
    }

    /// Calls `body` for every event dropped because the queue was full (the `authflow_audit_dropped_total` metric).
    package func onDrop(_ body: @escaping @Sendable () -> Void) { onDrop.withLock { $0 = body } }

    /// How many events were dropped because the writer fell behind.
    package var dropped: Int { state.withLock { $0.dropped } }

    /// Queues `event` with the time now and, inside a request, the request's id and client address. Never waits:
    /// a full queue drops the event and counts it.
    package func record(_ event: AuditEvent) {
        let context = RequestContext.current
        let line = event.line(time: clock.now(), requestID: context?.requestID, clientAddress: context?.clientAddress)
        let queued = state.withLock { state -> Bool in
            guard !state.stopping, state.queue.count < capacity else {
                state.dropped += 1
                return false
            }
            state.queue.append(line)
            return true
        }
        if queued {
            wake.signal()
        } else {
            onDrop.withLock { $0 }?()
        }
    }

    /// Reopens the file before the next line is written (after log rotation renamed it); nothing for standard error.
    package func reopen() {
        state.withLock { $0.reopen = true }
        wake.signal()
    }

    /// Whether every line queued so far has been written.
    package var isIdle: Bool { state.withLock { $0.queue.isEmpty && !$0.writing } }

    /// Writes what is queued, then stops the writer and closes the file. Later events are dropped.
    package func close() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        while true {
            wake.wait()
            let (lines, reopen, stopping, descriptor) = state.withLock { state in
                let taken = (state.queue, state.reopen, state.stopping, state.descriptor)
                state.queue.removeAll(keepingCapacity: true)
                state.reopen = false
                state.writing = !taken.0.isEmpty
                return taken
            }
            var current = descriptor
            if reopen, case .file = destination, let fresh = try? Self.open(destination) {
                if current > 2 { _ = Foundation.close(current) }
                current = fresh
                state.withLock { $0.descriptor = fresh }
            }
            if !lines.isEmpty {
                StandardErrorWriter.write(Array(lines.joined()), to: current)
                state.withLock { $0.writing = false }
            }
            if stopping {
                if current > 2 { _ = Foundation.close(current) }
                finished.signal()
                return
            }
        }
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
