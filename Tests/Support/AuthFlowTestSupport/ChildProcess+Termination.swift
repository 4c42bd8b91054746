extension ChildProcess {
    /// How a child process ended: it called `exit` or it was killed by a signal.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        /// The process exited with this status (0...255).
        case exited(Int32)
        /// The process was killed by this signal number.
        case signaled(Int32)

        /// The exit status, or 128 + the signal number for a signal death (the shell's convention).
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        }

        /// "exit 3" or "signal 9".
        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }
}
