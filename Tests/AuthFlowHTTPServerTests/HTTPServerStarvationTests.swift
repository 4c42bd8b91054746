import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowTestSupport
import Foundation
import Synchronization
import Testing

/// The server answers even while Swift's global concurrent pool is fully blocked.
@Suite("HTTPServer handler threads")
struct HTTPServerStarvationTests {
    /// A blocking HTTP/1.0 GET over a plain socket, for use on a thread of its own.
    static func blockingGet(port: Int, path: String) -> String? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: response, as: UTF8.self)
    }

    /// How many blockers hold a pool thread.
    final class BlockedCount: Sendable {
        let count = Mutex(0)
    }

    /// Blocks the calling thread until `release` is signalled, at most 30 s (deliberately: it stands for
    /// blocking work in an application).
    static func blockThisThread(until release: DispatchSemaphore) {
        _ = release.wait(timeout: .now() + 30)
    }

    @Test func answersWhileTheGlobalPoolIsBlocked() async throws {
        let server = HTTPServer(configuration: .init()) { _ in
            // An await inside the handler must not need the global pool either.
            await Task.yield()
            return .text("pong")
        }
        let port = try server.start()

        // Occupy every thread of the global pool with blocking work that ends only when released.
        let width = ProcessInfo.processInfo.activeProcessorCount * 2
        let blocking = BlockedCount()
        let release = DispatchSemaphore(value: 0)
        let blockers = (0..<width).map { _ in
            Task.detached {
                blocking.count.withLock { $0 += 1 }
                Self.blockThisThread(until: release)
            }
        }
        // A thread of its own (not the pool) waits until the pool is full (one blocker per core; bounded),
        // asks for /ping, and only then releases the blockers: an answer it gets arrived while the pool was
        // blocked. The test's own task is suspended meanwhile, so it holds no pool thread either.
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let response: String? = await withCheckedContinuation { continuation in
            Thread {
                _ = eventuallyBlocking(within: .seconds(30)) { blocking.count.withLock { $0 } >= cores }
                let response = Self.blockingGet(port: port, path: "/ping")
                for _ in 0..<width { release.signal() }
                continuation.resume(returning: response)
            }.start()
        }
        for blocker in blockers { await blocker.value }
        await server.stop()

        #expect(response?.hasPrefix("HTTP/1.0 200") == true || response?.hasPrefix("HTTP/1.1 200") == true)
        #expect(response?.hasSuffix("pong") == true)
    }
}
