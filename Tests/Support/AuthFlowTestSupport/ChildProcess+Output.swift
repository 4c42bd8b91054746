extension ChildProcess {
    /// Everything a finished child process produced.
    public struct Output: Sendable {
        /// How the process ended.
        public let termination: Termination
        /// The bytes it wrote to standard output.
        public let stdout: [UInt8]
        /// The bytes it wrote to standard error.
        public let stderr: [UInt8]
        /// Whether the process overran its timeout and was killed with SIGKILL.
        public let timedOut: Bool

        /// Creates an output record.
        public init(termination: Termination, stdout: [UInt8], stderr: [UInt8], timedOut: Bool) {
            self.termination = termination
            self.stdout = stdout
            self.stderr = stderr
            self.timedOut = timedOut
        }

        /// The exit status, or 128 + the signal number when a signal killed the process.
        public var status: Int32 { termination.status }
        /// Standard output decoded as UTF-8 (invalid bytes replaced).
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        /// Standard error decoded as UTF-8 (invalid bytes replaced).
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }
}
