internal import CChildProcess
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child started with posix_spawn, and the parent's ends of its pipes (all close-on-exec).
///
/// The child gets its pipes on 0, 1 and 2 through file actions, every other descriptor closed
/// (`closefrom(3)`), default signal dispositions, an empty signal mask, and its working directory
/// through `chdir` in the child only: the parent's directory never changes.
struct SpawnedChild {
    enum StandardError {
        case pipe
        case file(String)
        case null
    }

    let pid: pid_t
    /// The write end of the child's stdin pipe (non-blocking), when stdin is a pipe.
    let stdin: Int32?
    let stdout: Int32
    /// The read end of the child's stderr pipe, when stderr is a pipe.
    let stderr: Int32?

    // The test process starts children from many threads at once; each of these calls is thread-safe.
    static func spawn(
        executable: String, arguments: [String], environment: [String: String]?, directory: String?,
        stdinPipe: Bool, stderr: StandardError, newProcessGroup: Bool
    ) throws -> SpawnedChild {
        let path = try resolve(executable)
        var opened: [Int32] = []
        func closeAll() { for fd in opened { close(fd) } }
        func makePipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard af_pipe_cloexec(&fds) == 0 else {
                let reason = String(cString: strerror(errno))
                closeAll()
                throw ChildProcessError(
                    code: "pipe_failed", message: "expected a new pipe, pipe2 failed: \(reason)", executable: executable
                )
            }
            opened += fds
            return (fds[0], fds[1])
        }
        let input = stdinPipe ? try makePipe() : nil
        let output = try makePipe()
        let errors: (read: Int32, write: Int32)?
        if case .pipe = stderr { errors = try makePipe() } else { errors = nil }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        var failure: Int32 = 0
        func check(_ result: Int32) { if failure == 0, result != 0 { failure = result } }
        if let input {
            check(posix_spawn_file_actions_adddup2(&actions, input.read, 0))
        } else {
            check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0))
        }
        check(posix_spawn_file_actions_adddup2(&actions, output.write, 1))
        switch stderr {
        case .pipe:
            if let errors { check(posix_spawn_file_actions_adddup2(&actions, errors.write, 2)) }
        case .file(let file):
            let absolute = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
            check(posix_spawn_file_actions_addopen(&actions, 2, absolute, O_WRONLY | O_CREAT | O_TRUNC, 0o644))
        case .null:
            check(posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0))
        }
        check(af_spawn_file_actions_addclosefrom(&actions, 3))
        if let directory { check(af_spawn_file_actions_addchdir(&actions, directory)) }

        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            check(posix_spawnattr_setpgroup(&attributes, 0))
        }
        check(posix_spawnattr_setflags(&attributes, Int16(flags)))
        var mask = sigset_t()
        sigemptyset(&mask)
        check(posix_spawnattr_setsigmask(&attributes, &mask))
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        check(posix_spawnattr_setsigdefault(&attributes, &defaults))
        guard failure == 0 else {
            closeAll()
            throw ChildProcessError(
                code: "spawn_failed",
                message: "expected the spawn attributes to be accepted, got: \(String(cString: strerror(failure)))",
                executable: executable)
        }

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in envp ?? [] { free(pointer) } }

        var pid: pid_t = 0
        let result: Int32
        if let envp {
            result = envp.withUnsafeBufferPointer { env in
                posix_spawn(&pid, path, &actions, &attributes, argv, env.baseAddress)
            }
        } else {
            result = posix_spawn(&pid, path, &actions, &attributes, argv, af_environ())
        }
        guard result == 0 else {
            closeAll()
            throw ChildProcessError(
                code: "spawn_failed",
                message: "expected \(path) to start, posix_spawn failed: "
                    + String(cString: strerror(result)), executable: executable)
        }
        // The child holds its ends now; the parent keeps only its own.
        if let input {
            close(input.read)
            _ = af_set_nonblocking(input.write)
        }
        close(output.write)
        if let errors { close(errors.write) }
        return SpawnedChild(pid: pid, stdin: input?.write, stdout: output.read, stderr: errors?.read)
    }

    /// An absolute path for `executable`: as given when it holds a slash (relative to the parent's
    /// directory), else the first executable file of that name on the parent's `PATH`.
    static func resolve(_ executable: String) throws -> String {
        if executable.hasPrefix("/") { return executable }
        if executable.contains("/") { return FileManager.default.currentDirectoryPath + "/" + executable }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let base = directory.isEmpty ? FileManager.default.currentDirectoryPath : String(directory)
            let candidate = base + "/" + executable
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                access(candidate, X_OK) == 0
            {
                return candidate
            }
        }
        throw ChildProcessError(
            code: "executable_not_found", message: "expected an executable named \(executable) on PATH, found none",
            executable: executable)
    }
}
