import AuthFlowTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("ChildProcess.run")
struct ChildProcessTests {
    static func shell(
        _ script: String, _ arguments: [String] = [], stdin: [UInt8]? = nil, timeout: Double = 60
    ) throws -> ChildProcess.Output {
        try ChildProcess.run(
            executable: "/bin/sh", arguments: ["-c", script, "sh"] + arguments, stdin: stdin,
            timeout: timeout)
    }

    @Test func reportsTheExitStatus() throws {
        let output = try Self.shell("echo out; echo err >&2; exit 3")
        #expect(output.termination == .exited(3))
        #expect(output.status == 3)
        #expect(output.stdoutText == "out\n")
        #expect(output.stderrText == "err\n")
        #expect(!output.timedOut)
        #expect(try Self.shell("true").termination == .exited(0))
    }

    @Test func distinguishesADeathBySignalFromAnExit() throws {
        let killed = try Self.shell("kill -TERM $$; sleep 5")
        #expect(killed.termination == .signaled(SIGTERM))
        #expect(killed.status == 128 + SIGTERM)
        // Exiting with 143 is not the same as dying of SIGTERM.
        let exited = try Self.shell("exit 143")
        #expect(exited.termination == .exited(143))
        #expect(exited.termination != killed.termination)
    }

    @Test func readsLargeOutputsOnBothStreamsWithoutDeadlock() throws {
        let size = 5 * 1024 * 1024
        // stderr first: a reader that drained stdout only would block the child on a full stderr pipe.
        let output = try Self.shell(
            "head -c \(size) /dev/zero | tr '\\0' e >&2; head -c \(size) /dev/zero | tr '\\0' o", timeout: 120)
        #expect(output.termination == .exited(0))
        #expect(output.stdout.count == size)
        #expect(output.stderr.count == size)
        #expect(output.stdout.allSatisfy { $0 == UInt8(ascii: "o") })
        #expect(output.stderr.allSatisfy { $0 == UInt8(ascii: "e") })
    }

    @Test func writesStandardInputWhileReadingOutput() throws {
        // 5 MB through `cat`: stdin must be written while stdout is drained, or both pipes fill up.
        let input = (0..<(5 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let output = try ChildProcess.run(executable: "cat", stdin: input, timeout: 120)
        #expect(output.termination == .exited(0))
        #expect(output.stdout == input)
        let empty = try ChildProcess.run(executable: "cat", stdin: [], timeout: 30)
        #expect(empty.termination == .exited(0))
        #expect(empty.stdout.isEmpty)
        // Without stdin the child reads /dev/null.
        let null = try ChildProcess.run(executable: "cat", timeout: 30)
        #expect(null.termination == .exited(0) && null.stdout.isEmpty)
    }

    @Test func survivesAChildThatStopsReadingItsInput() throws {
        let input = [UInt8](repeating: 1, count: 4 * 1024 * 1024)
        let output = try Self.shell("head -c 10 >/dev/null; echo done", stdin: input, timeout: 30)
        #expect(output.termination == .exited(0))
        #expect(output.stdoutText == "done\n")
    }

    @Test func killsTheChildAtTheTimeout() throws {
        // SIGKILL and `timedOut` are the events: `sleep 600` ends on its own with status 0, never by a signal.
        let output = try Self.shell("echo started; exec sleep 600", timeout: 0.5)
        #expect(output.timedOut)
        #expect(output.termination == .signaled(SIGKILL))
        #expect(output.stdoutText == "started\n")
        // In a group of its own, the whole group is killed, so no grandchild keeps the pipes open: the
        // grandchild dies too (gone, or a zombie awaiting its reaper; the SIGKILL lands within moments).
        let group = try ChildProcess.run(
            executable: "/bin/sh", arguments: ["-c", "sleep 600 & echo $!; wait"], timeout: 0.5,
            newProcessGroup: true)
        #expect(group.timedOut && group.termination == .signaled(SIGKILL))
        let grandchild = try #require(Int32(group.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(eventuallyBlocking { Self.isGoneOrZombie(grandchild) }, "the grandchild \(grandchild) still runs")
        // A child that finishes in time is not reported as timed out.
        #expect(try !Self.shell("exit 0", timeout: 30).timedOut)
    }

    /// Whether process `pid` no longer runs: absent from /proc, or a zombie (state `Z`) not yet reaped.
    static func isGoneOrZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    @Test func appliesTheWorkingDirectoryToTheChildOnly() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("af-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = FileManager.default.currentDirectoryPath
        let output = try ChildProcess.run(executable: "/bin/pwd", arguments: ["-P"], directory: directory.path)
        #expect(output.termination == .exited(0))
        let resolved = directory.resolvingSymlinksInPath().path
        #expect(output.stdoutText == resolved + "\n")
        #expect(FileManager.default.currentDirectoryPath == before)
        // A directory that does not exist makes the spawn fail, not the child run elsewhere.
        #expect(throws: ChildProcessError.self) {
            try ChildProcess.run(executable: "/bin/pwd", directory: directory.path + "/missing")
        }
    }

    @Test func passesTheEnvironment() throws {
        let given = try ChildProcess.run(executable: "/usr/bin/env", environment: ["AF_CHILD_TEST": "a=b c"])
        #expect(given.termination == .exited(0))
        #expect(given.stdoutText == "AF_CHILD_TEST=a=b c\n")
        // Without an environment the parent's is passed.
        let inherited = try ChildProcess.run(executable: "/usr/bin/env")
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        #expect(inherited.stdoutText.split(separator: "\n").contains("PATH=\(path)"))
        #expect(!inherited.stdoutText.contains("AF_CHILD_TEST"))
    }

    @Test func looksUpABareNameOnPath() throws {
        let output = try ChildProcess.run(executable: "sh", arguments: ["-c", "echo $0"])
        #expect(output.stdoutText == "sh\n" || output.stdoutText.hasSuffix("/sh\n"))
        let error = #expect(throws: ChildProcessError.self) {
            try ChildProcess.run(executable: "af-no-such-program-\(UUID().uuidString)")
        }
        #expect(error?.code == "executable_not_found")
        let missing = #expect(throws: ChildProcessError.self) {
            try ChildProcess.run(executable: "/nonexistent/af-program")
        }
        #expect(missing?.code == "spawn_failed")
    }

    @Test func leaksNoDescriptorIntoTheChild() throws {
        // Descriptors without close-on-exec, as a careless library would leave them.
        var extra: [Int32] = []
        for _ in 0..<5 { extra.append(dup(1)) }
        defer { for fd in extra { close(fd) } }
        #expect(extra.allSatisfy { $0 > 2 })
        // A long-running child holds pipes in the parent meanwhile.
        let server = try ChildProcess.start(executable: "/bin/sleep", arguments: ["600"], stdin: .pipe)
        defer { server.kill() }
        let output = try ChildProcess.run(executable: "/bin/ls", arguments: ["/proc/self/fd"])
        #expect(output.termination == .exited(0))
        let open = Set(output.stdoutText.split(separator: "\n").compactMap { Int32($0) })
        // 0, 1, 2 and the directory ls is listing.
        #expect(open.isSuperset(of: [0, 1, 2]))
        #expect(open.count == 4, "open in the child: \(open.sorted())")
        let links = try ChildProcess.run(executable: "/bin/ls", arguments: ["-l", "/proc/self/fd"]).stdoutText
        let pipes = links.split(separator: "\n").filter { $0.contains("pipe:") }
        #expect(pipes.count == 2, "only stdout and stderr are pipes: \(links)")
    }

    @Test func runsManySpawnsConcurrentlyFromManyThreads() async throws {
        let directory = FileManager.default.currentDirectoryPath
        let count = 200
        let failures = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<count {
                group.addTask {
                    // Every other child runs in another directory: the parent's must never move.
                    let output = try await ChildProcess.run(
                        executable: "/bin/sh",
                        arguments: ["-c", "echo \"$1 $(pwd)\"; echo \"e$1\" >&2; exit $(($1 % 7))", "sh", "\(index)"],
                        directory: index.isMultiple(of: 2) ? "/" : nil, timeout: 120)
                    let place = index.isMultiple(of: 2) ? "/" : directory
                    guard output.termination == .exited(Int32(index % 7)), output.stdoutText == "\(index) \(place)\n",
                        output.stderrText == "e\(index)\n", !output.timedOut
                    else { return "\(index): \(output.termination) \(output.stdoutText) \(output.stderrText)" }
                    return nil
                }
            }
            var failures: [String] = []
            for try await failure in group { if let failure { failures.append(failure) } }
            return failures
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(FileManager.default.currentDirectoryPath == directory)
    }

    @Test func runsManySpawnsFromPlainThreads() throws {
        final class Results: Sendable { let outputs = Mutex<[Int: ChildProcess.Output]>([:]) }
        let results = Results()
        let threads = 50
        let done = DispatchSemaphore(value: 0)
        for index in 0..<threads {
            Thread {
                let output = try? ChildProcess.run(
                    executable: "/bin/sh", arguments: ["-c", "echo $1", "sh", "\(index)"], timeout: 120)
                results.outputs.withLock { $0[index] = output }
                done.signal()
            }.start()
        }
        for _ in 0..<threads { #expect(done.wait(timeout: .now() + 180) == .success) }
        let collected = results.outputs.withLock { $0 }
        #expect(collected.count == threads)
        for (index, output) in collected {
            #expect(output.termination == .exited(0) && output.stdoutText == "\(index)\n")
        }
    }
}
