import AuthFlowTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("ChildProcess.start")
struct RunningChildTests {
    /// Whether `pid` is gone or a zombie no one reaps (containers may lack an init that reaps orphans).
    static func isGone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        guard let close = stat.lastIndex(of: ")") else { return true }
        return stat[close...].dropFirst(2).first == "Z"
    }

    @Test func readsLinesAndStopsOnASignal() async throws {
        let child = try ChildProcess.start(
            executable: "/bin/sh",
            arguments: ["-c", "echo listening at 1; printf 'second\\n'; echo oops >&2; exec sleep 600"])
        #expect(try await child.readLine(timeout: 30) == "listening at 1")
        #expect(try await child.readLine(timeout: 30) == "second")
        #expect(child.isRunning)
        #expect(child.termination == nil)
        #expect(child.signal(SIGTERM))
        #expect(await child.waitForExit(timeout: 30) == .signaled(SIGTERM))
        #expect(!child.isRunning)
        #expect(child.stdoutText == "listening at 1\nsecond\n")
        #expect(child.stderrText == "oops\n")
        // Once reaped, no signal is sent (the pid may belong to another process by now).
        #expect(!child.signal(SIGKILL))
        #expect(try await child.readLine(timeout: 5) == nil)
    }

    @Test func readLineTimesOutWhenNothingComes() throws {
        let child = try ChildProcess.start(executable: "/bin/sleep", arguments: ["600"])
        // `timed_out` is the event: without the timeout the read would end with `sleep` (nil at end of output).
        let error = #expect(throws: ChildProcessError.self) { try child.readLine(timeout: 0.3) }
        #expect(error?.code == "timed_out")
        #expect(child.kill() == .signaled(SIGKILL))
    }

    @Test func returnsTheLastLineWithoutNewlineThenEnd() throws {
        let child = try ChildProcess.start(executable: "/bin/sh", arguments: ["-c", "printf 'a\\nb'"])
        #expect(try child.readLine(timeout: 30) == "a")
        #expect(try child.readLine(timeout: 30) == "b")
        #expect(try child.readLine(timeout: 30) == nil)
        #expect(child.waitForExit(timeout: 30) == .exited(0))
    }

    @Test func writesAndClosesStandardInput() async throws {
        let child = try ChildProcess.start(executable: "cat", stdin: .pipe)
        try child.write(Array("hello\n".utf8))
        #expect(try await child.readLine(timeout: 30) == "hello")
        child.closeStdin()
        #expect(try await child.readLine(timeout: 30) == nil)
        #expect(await child.waitForExit(timeout: 30) == .exited(0))
        let error = #expect(throws: ChildProcessError.self) { try child.write([1]) }
        #expect(error?.code == "stdin_failed")
        // With stdin from /dev/null there is no pipe to write.
        let null = try ChildProcess.start(executable: "cat")
        #expect(await null.waitForExit(timeout: 30) == .exited(0))
        #expect(throws: ChildProcessError.self) { try null.write([1]) }
    }

    @Test func stopsWithSIGTERMThenSIGKILL() throws {
        let polite = try ChildProcess.start(executable: "/bin/sleep", arguments: ["600"])
        #expect(polite.stop(grace: 10) == .signaled(SIGTERM))
        // A child ignoring SIGTERM is killed after the grace period.
        let stubborn = try ChildProcess.start(
            executable: "/bin/sh", arguments: ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"])
        #expect(try stubborn.readLine(timeout: 30) == "ready")
        #expect(stubborn.stop(grace: 0.3) == .signaled(SIGKILL))
    }

    @Test func writesStandardErrorToAFileInTheGivenDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("stderr.log").path
        let before = FileManager.default.currentDirectoryPath
        let child = try ChildProcess.start(
            executable: "/bin/sh", arguments: ["-c", "pwd -P; echo to-file >&2; echo \"$AF_MARK\""],
            stderr: .file(log), environment: ["AF_MARK": "marked"], directory: directory.path)
        #expect(try child.readLine(timeout: 30) == directory.resolvingSymlinksInPath().path)
        #expect(try child.readLine(timeout: 30) == "marked")
        #expect(child.waitForExit(timeout: 30) == .exited(0))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "to-file\n")
        #expect(child.stderr.isEmpty)
        #expect(FileManager.default.currentDirectoryPath == before)
    }

    @Test func releasingTheValueKillsAndReapsTheChild() throws {
        var pid: Int32 = 0
        do {
            let child = try ChildProcess.start(executable: "/bin/sleep", arguments: ["600"])
            pid = child.pid
            #expect(kill(pid, 0) == 0)
        }
        // Reaped, not a zombie: the pid is gone.
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test func signalsTheWholeGroupOfAGroupLeader() throws {
        let child = try ChildProcess.start(
            executable: "/bin/sh", arguments: ["-c", "sleep 600 & echo $!; wait"], newProcessGroup: true)
        let line = try child.readLine(timeout: 30)
        let grandchild = try #require(line.flatMap { Int32($0) })
        #expect(getpgid(child.pid) == child.pid)
        #expect(getpgid(grandchild) == child.pid)
        #expect(child.signal(SIGKILL))
        #expect(child.waitForExit(timeout: 30) == .signaled(SIGKILL))
        #expect(
            eventuallyBlocking { Self.isGone(grandchild) }, "the grandchild \(grandchild) survived its group's SIGKILL")
    }
}
