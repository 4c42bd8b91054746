import AuthFlowTestSupport
import Foundation

/// The built `authflow` binary running as a child process, watched without blocking the cooperative pool
/// (a monitor thread collects its output; waits suspend between checks). Killed and reaped when released.
final class ServeProcess: Sendable {
    private let child: RunningChild

    init(_ arguments: [String], directory: String? = nil) throws {
        child = try ChildProcess.start(executable: try CLIRunner.binary(), arguments: arguments, directory: directory)
    }

    var stdout: String { child.stdoutText }
    var stderr: String { child.stderrText }
    var pid: Int32 { child.pid }

    /// Waits until stdout holds `count` complete lines (or the process exits, or `timeout` passes).
    func lines(_ count: Int, timeout: Double = 60) async throws -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var lines: [String] = []
        while lines.count < count {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { break }
            do {
                guard let line = try await child.readLine(timeout: remaining) else { break }
                lines.append(line)
            } catch let error as ChildProcessError where error.code == "timed_out" {
                break
            }
        }
        return lines
    }

    /// Sends `signal` to the process while it runs (never once it has been reaped).
    func send(_ signal: Int32) { child.signal(signal) }

    /// Waits for the exit status; kills the process and returns `nil` after `timeout`.
    func exit(timeout: Double = 30) async throws -> Int32? {
        if let ended = await child.waitForExit(timeout: timeout) { return ended.status }
        child.kill()
        return nil
    }
}
