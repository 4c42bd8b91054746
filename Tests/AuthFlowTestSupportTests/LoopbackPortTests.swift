import AuthFlowTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("LoopbackPort")
struct LoopbackPortTests {
    /// Binds and listens on 127.0.0.1:`port`; returns the descriptor, or -1 when the port is taken.
    static func listen(on port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, 4) == 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    @Test func reportsAListeningPortAsInUseAndNoLongerOnceClosed() throws {
        let port = try LoopbackPort.unused()
        #expect((20_000..<32_000).contains(port))
        #expect(!LoopbackPort.portsInUse().contains(port))
        let descriptor = Self.listen(on: port)
        try #require(descriptor >= 0, "the port LoopbackPort chose could not be bound")
        #expect(LoopbackPort.portsInUse().contains(port))
        #expect(LoopbackPort.listeningSocketInodes(on: port).count == 1)
        #expect(LoopbackPort.ownsListeningSocket(on: port))
        close(descriptor)
        #expect(!LoopbackPort.ownsListeningSocket(on: port))
        // A child spawned by a concurrent test may share the descriptor until its exec: wait for it to go.
        #expect(eventuallyBlocking { !LoopbackPort.portsInUse().contains(port) })
    }
}
