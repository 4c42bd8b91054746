internal import CChildProcess
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running child process (a server) started by `ChildProcess.start`.
///
/// A dedicated monitor thread reads its standard output and error into memory and reaps it when it
/// ends; signals are sent only while it has not been reaped, so a recycled pid is never hit. When the
/// value is released the child is killed with SIGKILL and reaped, so no child outlives its test.
public final class RunningChild: Sendable {
    /// The child's process id.
    public let pid: Int32
    /// The executable as the caller named it.
    public let executable: String
    private let group: Bool
    private let shared: Shared
    private let input: Mutex<Int32?>

    /// What the monitor thread and the test share.
    final class Shared: Sendable {
        struct State {
            var stdout: [UInt8] = []
            /// Where the next `readLine` starts in `stdout`.
            var lineStart = 0
            var stderr: [UInt8] = []
            var stdoutOpen = true
            var termination: ChildProcess.Termination?
            var released = false
            /// Set by the monitor once it stopped reading (both pipes at end of file, or given up).
            var outputEnded = false
        }

        let state = Mutex(State())
    }

    init(_ child: SpawnedChild, executable: String, group: Bool) {
        pid = child.pid
        self.executable = executable
        self.group = group
        shared = Shared()
        input = Mutex(child.stdin)
        let shared = self.shared
        let pid = child.pid
        // Opened before anyone can reap the child, so it never names a recycled pid.
        let pidfd = af_pidfd_open(pid)
        let thread = Thread {
            Self.monitor(shared, pid: pid, pidfd: pidfd, stdout: child.stdout, stderr: child.stderr)
        }
        thread.name = "RunningChild \(pid)"
        thread.start()
    }

    deinit {
        kill()
        closeStdin()
        shared.state.withLock { $0.released = true }
    }

    // MARK: Output

    /// Everything the child wrote to standard output so far (lines taken by `readLine` included).
    public var stdout: [UInt8] { shared.state.withLock { $0.stdout } }
    /// `stdout` decoded as UTF-8.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Everything the child wrote to standard error so far (empty unless stderr is `.capture`).
    public var stderr: [UInt8] { shared.state.withLock { $0.stderr } }
    /// `stderr` decoded as UTF-8.
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }

    /// Waits (blocking the calling thread) for the next line of standard output, without its newline.
    ///
    /// Returns nil once standard output has ended and every line was taken (a last line without a
    /// newline is returned as a line).
    /// - Throws: `ChildProcessError` `timed_out` when no line arrives within `timeout` seconds.
    public func readLine(timeout: Double) throws -> String? {
        let taken = Waiting.valueBlocking(within: .seconds(timeout), poll: .milliseconds(5)) { takeLine() }
        guard let taken else { throw timedOut("a line of standard output", timeout) }
        return taken.line
    }

    /// Waits (suspending, never blocking a thread) for the next line of standard output, without its newline.
    ///
    /// Returns nil once standard output has ended and every line was taken.
    /// - Throws: `ChildProcessError` `timed_out` when no line arrives within `timeout` seconds;
    ///   `CancellationError` when the task is cancelled.
    public func readLine(timeout: Double) async throws -> String? {
        let taken = await Waiting.value(within: .seconds(timeout)) { takeLine() }
        try Task.checkCancellation()
        guard let taken else { throw timedOut("a line of standard output", timeout) }
        return taken.line
    }

    private enum LineResult {
        case line(String)
        case end

        /// The line, nil at the end of the output.
        var line: String? {
            guard case .line(let line) = self else { return nil }
            return line
        }
    }

    /// The next complete line, `.end` once output ended and every line was taken, nil when none is ready yet.
    private func takeLine() -> LineResult? {
        shared.state.withLock { state in
            let rest = state.stdout[state.lineStart...]
            if let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.stdout[state.lineStart..<newline], as: UTF8.self)
                state.lineStart = newline + 1
                return .line(line)
            }
            guard !state.stdoutOpen else { return nil }
            guard !rest.isEmpty else { return .end }
            state.lineStart = state.stdout.count
            return .line(String(decoding: rest, as: UTF8.self))
        }
    }

    // MARK: Standard input

    /// Writes `bytes` to the child's standard input (started with `stdin: .pipe`).
    /// - Throws: `ChildProcessError` `stdin_failed` when stdin is not a pipe, was closed, the child
    ///   stopped reading, or the bytes were not taken within `timeout` seconds.
    public func write(_ bytes: [UInt8], timeout: Double = 30) throws {
        try input.withLock { fd in
            guard let descriptor = fd else { throw stdinFailed("an open stdin pipe, found none") }
            let deadline = ChildIO.now() + timeout
            var offset = 0
            while offset < bytes.count {
                guard let next = ChildIO.write(descriptor, bytes, from: offset) else {
                    throw stdinFailed("the child to read its standard input, it closed it")
                }
                offset = next
                if offset < bytes.count {
                    guard ChildIO.now() < deadline else { throw stdinFailed("the child to read within \(timeout) s") }
                    var fds = [pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)]
                    ChildIO.poll(&fds, timeout: 0.05)
                }
            }
        }
    }

    /// Closes the child's standard input (it reads end of file); does nothing when already closed.
    public func closeStdin() {
        input.withLock { fd in
            if let descriptor = fd { close(descriptor) }
            fd = nil
        }
    }

    // MARK: Life cycle

    /// How the child ended, or nil while it runs.
    public var termination: ChildProcess.Termination? { reapIfEnded() }

    /// Whether the child is still running (not yet reaped).
    public var isRunning: Bool { reapIfEnded() == nil }

    /// Sends `signal` (e.g. SIGTERM, SIGINT, SIGKILL) to the child, or to its process group when it
    /// leads one; returns false, sending nothing, once the child has ended.
    @discardableResult
    public func signal(_ signal: Int32) -> Bool {
        shared.state.withLock { state in
            if state.termination == nil { state.termination = ChildIO.reap(pid, blocking: false) }
            guard state.termination == nil else { return false }
            ChildIO.send(signal, to: pid, group: group)
            return true
        }
    }

    /// Waits (blocking the calling thread) at most `timeout` seconds for the child to end and its output to
    /// be collected; nil if it still runs.
    ///
    /// When it returns a termination, `stdout` and `stderr` hold everything the child wrote (unless a
    /// grandchild kept the pipes open past the timeout).
    public func waitForExit(timeout: Double) -> ChildProcess.Termination? {
        Waiting.valueBlocking(within: .seconds(timeout), poll: .milliseconds(2)) { endedWithOutput() } ?? reapIfEnded()
    }

    /// Waits (suspending, never blocking a thread) at most `timeout` seconds for the child to end and its
    /// output to be collected; nil if it still runs.
    public func waitForExit(timeout: Double) async -> ChildProcess.Termination? {
        await Waiting.value(within: .seconds(timeout)) { endedWithOutput() } ?? reapIfEnded()
    }

    /// Sends SIGTERM, waits at most `grace` seconds, then kills with SIGKILL; returns how the child ended.
    @discardableResult
    public func stop(grace: Double = 5) -> ChildProcess.Termination {
        signal(SIGTERM)
        if let ended = waitForExit(timeout: grace) { return ended }
        return kill()
    }

    /// Kills the child with SIGKILL (its group too when it leads one) and reaps it; returns how it ended.
    @discardableResult
    public func kill() -> ChildProcess.Termination {
        shared.state.withLock { state in
            if state.termination == nil { state.termination = ChildIO.reap(pid, blocking: false) }
            if let ended = state.termination { return ended }
            ChildIO.send(SIGKILL, to: pid, group: group)
            let ended = ChildIO.reap(pid, blocking: true) ?? .exited(-1)
            state.termination = ended
            return ended
        }
    }

    /// The termination once the child is reaped and the monitor has read all its output.
    private func endedWithOutput() -> ChildProcess.Termination? {
        shared.state.withLock { state in
            if state.termination == nil { state.termination = ChildIO.reap(pid, blocking: false) }
            return state.outputEnded ? state.termination : nil
        }
    }

    private func reapIfEnded() -> ChildProcess.Termination? {
        shared.state.withLock { state in
            if state.termination == nil { state.termination = ChildIO.reap(pid, blocking: false) }
            return state.termination
        }
    }

    private func timedOut(_ expected: String, _ timeout: Double) -> ChildProcessError {
        ChildProcessError(
            code: "timed_out", message: "expected \(expected) within \(timeout) s, found none", executable: executable)
    }

    private func stdinFailed(_ expected: String) -> ChildProcessError {
        ChildProcessError(code: "stdin_failed", message: "expected \(expected)", executable: executable)
    }

    // MARK: Monitor

    /// Reads stdout and stderr into `shared` and reaps the child; ends once the child is reaped and its
    /// pipes are closed (or after a grace period when a grandchild keeps them open, or once released).
    /// `pidfd` polls readable when the child exits (-1 without pidfd support: the exit is noticed by polling).
    private static func monitor(_ shared: Shared, pid: pid_t, pidfd: Int32, stdout: Int32, stderr: Int32?) {
        var output: Int32? = stdout
        var errors = stderr
        var reapedAt: Double?
        defer {
            for fd in [output, errors].compactMap({ $0 }) { close(fd) }
            if pidfd >= 0 { close(pidfd) }
            shared.state.withLock {
                $0.stdoutOpen = false
                $0.outputEnded = true
            }
        }
        while true {
            let (ended, released) = shared.state.withLock { state in
                if state.termination == nil { state.termination = ChildIO.reap(pid, blocking: false) }
                return (state.termination != nil, state.released)
            }
            let now = ChildIO.now()
            if ended, reapedAt == nil { reapedAt = now }
            if let reapedAt {
                if output == nil && errors == nil || released || now - reapedAt > ChildProcess.drainGrace { break }
            }
            var fds: [pollfd] = []
            if let fd = output { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            if let fd = errors { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            if !ended, pidfd >= 0 { fds.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
            // Wake up now and then to notice an exit without a pidfd, a release, or the end of the grace period.
            ChildIO.poll(&fds, timeout: pidfd >= 0 ? 0.05 : 0.02)
            for entry in fds where entry.revents != 0 && entry.fd != pidfd {
                var bytes: [UInt8] = []
                let result = ChildIO.read(entry.fd, into: &bytes)
                let isOutput = entry.fd == output
                if !bytes.isEmpty {
                    shared.state.withLock { state in
                        if isOutput { state.stdout += bytes } else { state.stderr += bytes }
                    }
                }
                if case .end = result {
                    close(entry.fd)
                    if isOutput {
                        output = nil
                        shared.state.withLock { $0.stdoutOpen = false }
                    } else {
                        errors = nil
                    }
                }
            }
        }
    }
}
