internal import CChildProcess
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts child processes for tests with posix_spawn, without Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux changes the whole test process's working directory while it
/// spawns and, before swift-corelibs-foundation#5472, can read past a mapping while it scans
/// `/proc/self/fd`; both break suites that spawn many children from many threads. Here the child gets
/// close-on-exec pipes on 0/1/2, every other descriptor is closed in the child, and the working
/// directory is changed in the child only.
public enum ChildProcess {
    /// Runs `executable` to completion and returns its status and output.
    ///
    /// Standard output and error are read concurrently with writing `stdin` (a poll loop), so large
    /// outputs never deadlock. At `timeout` seconds the child is killed with SIGKILL and
    /// `Output.timedOut` is set. Blocks the calling thread: from async code use the `async` overload.
    /// - Parameters:
    ///   - executable: an absolute path, a path relative to the current directory, or a bare name
    ///     looked up on `PATH`.
    ///   - stdin: bytes written to the child's standard input, then closed; nil gives `/dev/null`.
    ///   - environment: the child's whole environment; nil passes the parent's.
    ///   - directory: the child's working directory; nil keeps the parent's.
    ///   - newProcessGroup: starts the child in a process group of its own (the timeout kills the group).
    /// - Throws: `ChildProcessError` when the executable is not found or cannot be started.
    public static func run(
        executable: String, arguments: [String] = [], stdin: [UInt8]? = nil, environment: [String: String]? = nil,
        directory: String? = nil, timeout: Double = 60, newProcessGroup: Bool = false
    ) throws -> Output {
        let child = try SpawnedChild.spawn(
            executable: executable, arguments: arguments, environment: environment, directory: directory,
            stdinPipe: stdin != nil, stderr: .pipe, newProcessGroup: newProcessGroup)
        return collect(child, stdin: stdin ?? [], deadline: ChildIO.now() + timeout, group: newProcessGroup)
    }

    /// Runs `executable` to completion on a thread of its own (never on the cooperative pool) and
    /// returns its status and output; see the synchronous overload for the parameters.
    /// - Throws: `ChildProcessError` when the executable is not found or cannot be started.
    public static func run(
        executable: String, arguments: [String] = [], stdin: [UInt8]? = nil, environment: [String: String]? = nil,
        directory: String? = nil, timeout: Double = 60, newProcessGroup: Bool = false
    ) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Result {
                        try run(
                            executable: executable, arguments: arguments, stdin: stdin, environment: environment,
                            directory: directory, timeout: timeout, newProcessGroup: newProcessGroup)
                    })
            }
            thread.name = "ChildProcess.run"
            thread.start()
        }
    }

    /// Starts a long-running child (a server): its standard output is read line by line, its standard
    /// error captured, and it is killed and reaped when the returned value is released.
    /// - Parameters:
    ///   - executable: an absolute path, a path relative to the current directory, or a bare name
    ///     looked up on `PATH`.
    ///   - stdin: `/dev/null`, or a pipe the test writes and closes.
    ///   - stderr: captured in memory, written to a file, or discarded.
    ///   - environment: the child's whole environment; nil passes the parent's.
    ///   - directory: the child's working directory; nil keeps the parent's.
    ///   - newProcessGroup: starts the child in a process group of its own; signals then go to the group.
    /// - Throws: `ChildProcessError` when the executable is not found or cannot be started.
    public static func start(
        executable: String, arguments: [String] = [], stdin: Input = .null, stderr: ErrorOutput = .capture,
        environment: [String: String]? = nil, directory: String? = nil, newProcessGroup: Bool = false
    ) throws -> RunningChild {
        let standardError: SpawnedChild.StandardError =
            switch stderr {
            case .capture: .pipe
            case .file(let path): .file(path)
            case .discard: .null
            }
        let child = try SpawnedChild.spawn(
            executable: executable, arguments: arguments, environment: environment, directory: directory,
            stdinPipe: stdin == .pipe, stderr: standardError, newProcessGroup: newProcessGroup)
        return RunningChild(child, executable: executable, group: newProcessGroup)
    }

    /// After the child is reaped, how long to keep reading pipes a grandchild may still hold open.
    static let drainGrace = 2.0

    /// Feeds stdin and reads stdout and stderr until the child ends, killing it at `deadline`.
    private static func collect(_ child: SpawnedChild, stdin bytes: [UInt8], deadline: Double, group: Bool)
        -> Output
    {
        var input = child.stdin
        var written = 0
        var output: Int32? = child.stdout
        var errors = child.stderr
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var termination: Termination?
        var timedOut = false
        var reapedAt = 0.0
        let pidfd = af_pidfd_open(child.pid)
        defer {
            for fd in [input, output, errors].compactMap({ $0 }) { close(fd) }
            if pidfd >= 0 { close(pidfd) }
        }
        if let fd = input, bytes.isEmpty {
            close(fd)
            input = nil
        }
        while true {
            if termination == nil, let ended = ChildIO.reap(child.pid, blocking: false) {
                termination = ended
                reapedAt = ChildIO.now()
                if let fd = input {  // nobody reads what is left
                    close(fd)
                    input = nil
                }
            }
            let now = ChildIO.now()
            if termination != nil, output == nil && errors == nil || now - reapedAt > drainGrace { break }
            if termination == nil, !timedOut, now >= deadline {
                ChildIO.send(SIGKILL, to: child.pid, group: group)
                timedOut = true
            }
            var fds: [pollfd] = []
            if let fd = output { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            if let fd = errors { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            if let fd = input { fds.append(pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)) }
            if termination == nil, pidfd >= 0 { fds.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
            let wait: Double
            if termination != nil {
                wait = max(0, drainGrace - (now - reapedAt))
            } else if timedOut || pidfd < 0 {
                wait = 0.02  // no pidfd: notice the exit by polling waitpid
            } else {
                wait = max(0, deadline - now)
            }
            ChildIO.poll(&fds, timeout: wait)
            for entry in fds where entry.revents != 0 {
                if entry.fd == output {
                    if case .end = ChildIO.read(entry.fd, into: &stdout) {
                        close(entry.fd)
                        output = nil
                    }
                } else if entry.fd == errors {
                    if case .end = ChildIO.read(entry.fd, into: &stderr) {
                        close(entry.fd)
                        errors = nil
                    }
                } else if entry.fd == input {
                    if let next = ChildIO.write(entry.fd, bytes, from: written), next < bytes.count {
                        written = next
                    } else {
                        close(entry.fd)  // all written, or the child stopped reading
                        input = nil
                    }
                }
            }
        }
        let ended = termination ?? ChildIO.reap(child.pid, blocking: true) ?? .exited(-1)
        return Output(termination: ended, stdout: stdout, stderr: stderr, timedOut: timedOut)
    }
}
