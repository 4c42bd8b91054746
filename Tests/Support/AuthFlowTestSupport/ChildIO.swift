internal import CChildProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Descriptor-level helpers shared by `ChildProcess.run` and `RunningChild`'s monitor.
enum ChildIO {
    enum ReadResult {
        /// Bytes were appended.
        case data
        /// The writer closed its end (or the descriptor failed): the caller closes it.
        case end
        /// Nothing to read now (interrupted or would block).
        case again
    }

    static let chunk = 64 * 1024

    /// Reads at most one chunk from `fd` and appends it to `buffer`.
    static func read(_ fd: Int32, into buffer: inout [UInt8]) -> ReadResult {
        let count = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: chunk) { scratch -> Int in
            let count = Glibc.read(fd, scratch.baseAddress, chunk)
            if count > 0 { buffer.append(contentsOf: scratch[0..<count]) }
            return count
        }
        if count > 0 { return .data }
        if count < 0, errno == EINTR || errno == EAGAIN { return .again }
        return .end
    }

    /// Writes what it can of `bytes[offset...]` to the non-blocking `fd`; returns the new offset, or nil
    /// when the reader is gone (EPIPE, never SIGPIPE) or the write failed.
    static func write(_ fd: Int32, _ bytes: [UInt8], from offset: Int) -> Int? {
        let end = min(bytes.count, offset + chunk)
        let written = bytes[offset..<end].withUnsafeBytes { af_write_nosigpipe(fd, $0.baseAddress, $0.count) }
        if written >= 0 { return offset + written }
        if errno == EINTR || errno == EAGAIN { return offset }
        return nil
    }

    /// Polls `fds` for at most `timeout` seconds (nil: without limit); EINTR counts as a timeout.
    static func poll(_ fds: inout [pollfd], timeout: Double?) {
        let milliseconds: Int32 = timeout.map { Int32(max(0, min($0 * 1000, 86_400_000)).rounded(.up)) } ?? -1
        _ = Glibc.poll(&fds, nfds_t(fds.count), milliseconds)
    }

    /// Reaps `pid` if it has ended (or waits for it when `blocking`); nil while it runs.
    ///
    /// A child already reaped elsewhere (ECHILD, e.g. SIGCHLD ignored) reads as `exited(-1)`.
    static func reap(_ pid: pid_t, blocking: Bool) -> ChildProcess.Termination? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == pid { break }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            return .exited(-1)
        }
        if af_wifsignaled(status) != 0 { return .signaled(af_wtermsig(status)) }
        return .exited(af_wexitstatus(status))
    }

    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Signals the child, or its whole process group when it leads one.
    static func send(_ signal: Int32, to pid: pid_t, group: Bool) {
        _ = kill(group ? -pid : pid, signal)
    }
}
