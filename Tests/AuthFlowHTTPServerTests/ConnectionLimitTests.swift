import AuthFlowHTTP
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowHTTPServer

/// A raw TCP client bound to a chosen loopback source address, for tests of per-client limits.
struct RawClient {
    let fd: Int32

    /// Connects from `source` to 127.0.0.1:`port`; `nil` when the connection cannot be made.
    init?(from source: String, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            Glibc.close(fd)
            return nil
        }
        self.fd = fd
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }

    /// Everything the server sends until it closes the connection (or the 10 s receive timeout).
    func readToEnd() -> (text: String, closed: Bool) {
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return (String(decoding: response, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: response, as: UTF8.self), errno == ECONNRESET) }
            response.append(contentsOf: buffer[0..<count])
        }
    }

    /// Stands in for a client that trickles its request: one byte, then up to `pace` for the server to close
    /// the connection (or answer), another byte if it did not, and so on; returns what the server sent once
    /// it closed, or after `deadline`.
    func trickle(_ byte: String, pace: Duration, deadline: Duration) -> (text: String, closed: Bool) {
        let (seconds, attoseconds) = pace.components
        let milliseconds = Int32(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let end = ContinuousClock.now.advanced(by: deadline)
        while ContinuousClock.now < end {
            write(byte)
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, milliseconds) > 0 { break }
        }
        return readToEnd()
    }

    func close() { Glibc.close(fd) }
}

@Suite("HTTPServer connection limits")
struct ConnectionLimitTests {
    static func server(_ configuration: HTTPServer.Configuration) throws -> (HTTPServer, Int) {
        let server = HTTPServer(configuration: configuration) { request in .text(request.remoteAddress) }
        return (server, try server.start())
    }

    @Test func closesConnectionsBeyondTheCapOfOneClientAddressAtOnce() async throws {
        // A request deadline and an idle timeout far beyond any stall of this test's task in a busy parallel run:
        // a held connection closed by either would let the fifth in.
        let (server, port) = try Self.server(.init(requestTimeout: 600, idleTimeout: 600, maxConnectionsPerClient: 4))
        defer { Task { await server.stop() } }
        let held = (0..<4).compactMap { _ in RawClient(from: "127.0.0.2", port: port) }
        #expect(held.count == 4)
        for client in held { client.write("GET /who HTTP/1.1\r\nHost: x\r\n") }  // headers never finished
        // All four are counted before the fifth comes (however busy the machine).
        try await waitUntil("the four held connections to be counted") { server.openConnections == 4 }
        let fifth = try #require(RawClient(from: "127.0.0.2", port: port))
        fifth.write("GET /who HTTP/1.0\r\n\r\n")
        let refused = fifth.readToEnd()
        #expect(refused.closed)
        #expect(!refused.text.contains("127.0.0.2"))
        fifth.close()
        // Another address is served meanwhile.
        let other = try #require(RawClient(from: "127.0.0.3", port: port))
        other.write("GET /who HTTP/1.0\r\n\r\n")
        #expect(other.readToEnd().text.hasSuffix("127.0.0.3"))
        other.close()
        for client in held { client.close() }
    }

    @Test func closesARequestThatTricklesPastTheDeadline() async throws {
        let (server, port) = try Self.server(.init(requestTimeout: 1, idleTimeout: 30))
        defer { Task { await server.stop() } }
        let slow = try #require(RawClient(from: "127.0.0.2", port: port))
        slow.write("GET /who HTTP/1.1\r\n")
        // A header byte whenever 300 ms pass without the server closing keeps the idle timeout from firing; the
        // request deadline still does. (However slowly the client trickles, the connection ends closed and
        // unanswered: by the deadline, or by the idle timeout.)
        let outcome = await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: slow.trickle("X", pace: .milliseconds(300), deadline: .seconds(60)))
            }
            .start()
        }
        #expect(outcome.closed)
        #expect(outcome.text.isEmpty)
        slow.close()
    }

    @Test func takesTheClientAddressFromForwardedForOnlyFromATrustedProxy() async throws {
        let trusted = try #require(IPNetwork(parsing: "127.0.0.2/32"))
        let (server, port) = try Self.server(HTTPServer.Configuration().trusting([trusted]))
        defer { Task { await server.stop() } }
        let proxied = try #require(RawClient(from: "127.0.0.2", port: port))
        proxied.write("GET /who HTTP/1.0\r\nX-Forwarded-For: 203.0.113.9, 198.51.100.7\r\n\r\n")
        #expect(proxied.readToEnd().text.hasSuffix("\r\n198.51.100.7"))
        proxied.close()
        let direct = try #require(RawClient(from: "127.0.0.3", port: port))
        direct.write("GET /who HTTP/1.0\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n")
        #expect(direct.readToEnd().text.hasSuffix("\r\n127.0.0.3"))
        direct.close()
    }

    @Test func aTrustedProxyIsExemptFromThePerClientCap() async throws {
        let trusted = try #require(IPNetwork(parsing: "127.0.0.2"))
        // As above: a request deadline and an idle timeout far beyond any stall of a busy run, so that no held
        // connection is closed (which would keep the count below five) before the check.
        let (server, port) = try Self.server(
            HTTPServer.Configuration(requestTimeout: 600, idleTimeout: 600, maxConnectionsPerClient: 2).trusting([
                trusted
            ]))
        defer { Task { await server.stop() } }
        let held = (0..<5).compactMap { _ in RawClient(from: "127.0.0.2", port: port) }
        #expect(held.count == 5)
        for client in held { client.write("GET /who HTTP/1.1\r\nHost: x\r\n") }
        // All five are counted (past the cap of two) before another comes.
        try await waitUntil("the five held connections to be counted", deadline: .seconds(120)) {
            server.openConnections == 5
        }
        let another = try #require(RawClient(from: "127.0.0.2", port: port))
        another.write("GET /who HTTP/1.0\r\nX-Forwarded-For: 198.51.100.7\r\n\r\n")
        #expect(another.readToEnd().text.hasSuffix("198.51.100.7"))
        another.close()
        for client in held { client.close() }
    }
}

@Suite("Client addresses behind proxies")
struct ForwardedClientTests {
    let proxies = [IPNetwork(parsing: "10.0.0.0/8")!, IPNetwork(parsing: "::1")!]

    @Test func believesForwardedForOnlyFromATrustedPeer() {
        #expect(
            ForwardedClient.address(peer: "192.0.2.1", forwardedFor: ["198.51.100.7"], trusted: proxies) == "192.0.2.1")
        #expect(
            ForwardedClient.address(peer: "10.1.2.3", forwardedFor: ["198.51.100.7"], trusted: proxies)
                == "198.51.100.7")
        #expect(ForwardedClient.address(peer: "10.1.2.3", forwardedFor: ["198.51.100.7"], trusted: []) == "10.1.2.3")
    }

    @Test func takesTheRightMostUntrustedHop() {
        // The client put a fake address first; the trusted proxies appended the real one and themselves.
        let header = ["1.2.3.4, 198.51.100.7, 10.0.0.5", "10.0.0.6"]
        #expect(ForwardedClient.address(peer: "10.0.0.7", forwardedFor: header, trusted: proxies) == "198.51.100.7")
    }

    @Test func stopsAtTheLastTrustedHopOnMalformedOrAllTrustedLists() {
        #expect(
            ForwardedClient.address(peer: "10.0.0.7", forwardedFor: ["junk, 10.0.0.5"], trusted: proxies) == "10.0.0.5")
        #expect(ForwardedClient.address(peer: "10.0.0.7", forwardedFor: ["10.0.0.5"], trusted: proxies) == "10.0.0.5")
        #expect(ForwardedClient.address(peer: "10.0.0.7", forwardedFor: [], trusted: proxies) == "10.0.0.7")
        #expect(ForwardedClient.address(peer: "::1", forwardedFor: ["unknown"], trusted: proxies) == "::1")
    }

    @Test func parsesNetworks() {
        let v4 = IPNetwork(parsing: "192.168.1.77/24")
        #expect(v4?.description == "192.168.1.0/24")
        #expect(v4?.contains("192.168.1.200") == true)
        #expect(v4?.contains("192.168.2.1") == false)
        #expect(v4?.contains("::ffff:192.168.1.5") == true)
        #expect(IPNetwork(parsing: "2001:db8::/32")?.contains("2001:db8:1::1") == true)
        #expect(IPNetwork(parsing: "2001:db8::/32")?.contains("192.168.1.1") == false)
        for bad in ["", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/", "example.com", "10.0.0/8", "::1/129", "1.2.3.4/ 8"] {
            #expect(IPNetwork(parsing: bad) == nil, "\(bad)")
        }
    }
}
