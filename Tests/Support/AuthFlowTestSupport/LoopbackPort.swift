import Foundation

/// Ports for processes under test that must be told their port before they start.
public enum LoopbackPort {
    /// A TCP port in 20000–31999 that no socket of this machine uses in any state right now.
    ///
    /// The range lies BELOW the kernel's ephemeral range (32768–60999), so listeners other tests bind
    /// to port 0 and outgoing connections can never be given it before the process under test binds it.
    /// Nothing is bound to probe: a probe socket closed again could still be held for an instant by a
    /// child that a concurrent test is spawning (between its clone and its exec), and the process under
    /// test would then find the port taken.
    public static func unused() throws(LoopbackPortError) -> Int {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let candidate = Int.random(in: 20_000..<32_000, using: &generator)
            if !portsInUse().contains(candidate) { return candidate }
        }
        throw LoopbackPortError(
            description: "expected an unused TCP port in 20000–31999, but 200 random picks were all in use")
    }

    /// The local TCP ports of every socket in /proc/net/tcp and /proc/net/tcp6, in any state.
    public static func portsInUse() -> Set<Int> {
        Set(sockets().map(\.port))
    }

    /// The inodes of the sockets listening on TCP `port` (any address), from /proc/net/tcp and tcp6.
    public static func listeningSocketInodes(on port: Int) -> Set<String> {
        Set(sockets().filter { $0.port == port && $0.isListening }.map(\.inode))
    }

    /// Whether one of this process's own descriptors is a socket listening on TCP `port` (unlike the
    /// system-wide tables, unaffected by children that share descriptors for an instant while spawning).
    public static func ownsListeningSocket(on port: Int) -> Bool {
        let listening = listeningSocketInodes(on: port)
        guard !listening.isEmpty else { return false }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains { descriptor in
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor),
                target.hasPrefix("socket:["), target.hasSuffix("]")
            else { return false }
            return listening.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }
    }

    /// The rows of /proc/net/tcp and /proc/net/tcp6: local port, state LISTEN (0A) or not, inode.
    static func sockets() -> [(port: Int, isListening: Bool, inode: String)] {
        var rows: [(port: Int, isListening: Bool, inode: String)] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // procfs files report size 0, so read to the end rather than trusting a size.
            guard let handle = FileHandle(forReadingAtPath: table) else { continue }
            let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                guard columns.count > 9, let colon = columns[1].lastIndex(of: ":"),
                    let port = Int(columns[1][columns[1].index(after: colon)...], radix: 16)
                else { continue }
                rows.append((port, columns[3] == "0A", String(columns[9])))
            }
        }
        return rows
    }
}

/// No unused port was found.
public struct LoopbackPortError: Error, CustomStringConvertible, Sendable {
    /// What was expected and what was found.
    public let description: String
}
