import AuthFlowHTTP
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowCurl
@testable import AuthFlowHTTP
@testable import AuthFlowHTTPServer

/// One client, one key: addresses are canonical, and an IPv6 client is its network of a configurable prefix.
@Suite("Client addresses: canonical text and IPv6 prefixes", .timeLimit(.minutes(1)))
struct ClientAddressTests {
    @Test func canonicalisesAddressText() {
        #expect(IPNetwork.canonical("2001:0DB8:0000::0001") == "2001:db8::1")
        #expect(IPNetwork.canonical("2001:DB8::1") == "2001:db8::1")
        #expect(IPNetwork.canonical("::FFFF:192.0.2.1") == "192.0.2.1")
        #expect(IPNetwork.canonical("::ffff:c000:0201") == "192.0.2.1")
        #expect(IPNetwork.canonical("192.0.2.1") == "192.0.2.1")
        for bad in ["", "example.com", "192.0.2.1:80", "[::1]", "2001:db8::1%lo", "1.2.3"] {
            #expect(IPNetwork.canonical(bad) == nil, "\(bad)")
        }
    }

    @Test func keysIPv6ClientsByTheirNetwork() {
        #expect(IPNetwork.clientKey("2001:db8:1:2:aaaa::1", ipv6Prefix: 64) == "2001:db8:1:2::/64")
        #expect(IPNetwork.clientKey("2001:DB8:1:2:ffff:ffff:ffff:ffff", ipv6Prefix: 64) == "2001:db8:1:2::/64")
        #expect(IPNetwork.clientKey("2001:db8:1:3::1", ipv6Prefix: 64) == "2001:db8:1:3::/64")
        #expect(IPNetwork.clientKey("2001:db8:1:3::1", ipv6Prefix: 48) == "2001:db8:1::/48")
        #expect(IPNetwork.clientKey("2001:0db8::1", ipv6Prefix: 128) == "2001:db8::1")
        #expect(IPNetwork.clientKey("::ffff:192.0.2.1", ipv6Prefix: 64) == "192.0.2.1")
        #expect(IPNetwork.clientKey("192.0.2.1", ipv6Prefix: 64) == "192.0.2.1")
        #expect(IPNetwork.clientKey("", ipv6Prefix: 64) == "")
    }

    @Test func forwardedForFromATrustedProxyIsCanonical() {
        let proxies = [IPNetwork(parsing: "10.0.0.0/8")!, IPNetwork(parsing: "2001:db8:ffff::/48")!]
        #expect(
            ForwardedClient.address(peer: "10.0.0.1", forwardedFor: ["2001:0DB8:0:0:0:0:0:0001"], trusted: proxies)
                == "2001:db8::1")
        // A trusted hop written another way is still a trusted hop, and the peer is canonical too.
        #expect(
            ForwardedClient.address(
                peer: "::FFFF:10.0.0.1", forwardedFor: ["2001:DB8::7, 2001:0db8:ffff:0::9, ::ffff:10.1.1.1"],
                trusted: proxies) == "2001:db8::7")
        #expect(
            ForwardedClient.address(peer: "::ffff:192.0.2.9", forwardedFor: ["1.1.1.1"], trusted: proxies)
                == "192.0.2.9")
    }

    @Test func theConnectionCapCountsOneIPv6NetworkAsOneClient() {
        let table = MicroHTTPDConnectionTable(perClientLimit: 2, trusted: [], requestTimeout: 0, ipv6Prefix: 64)
        let first = table.opened(client: "2001:db8:0:1::1", socket: -1)
        let second = table.opened(client: "2001:DB8:0:1:ffff::2", socket: -1)
        #expect(first.client == "2001:db8:0:1::1")
        #expect(first.key == second.key)
        #expect(!table.mayAccept("2001:db8:0:1::3"))
        #expect(!table.mayAccept("2001:0db8:0000:0001::1"))
        #expect(table.mayAccept("2001:db8:0:2::1"))
        table.closed(first)
        #expect(table.mayAccept("2001:db8:0:1::3"))
        // IPv4 written as IPv4-mapped IPv6 is the same client as its IPv4 text.
        let v4 = [table.opened(client: "192.0.2.1", socket: -1), table.opened(client: "::ffff:192.0.2.1", socket: -1)]
        #expect(v4.map(\.client) == ["192.0.2.1", "192.0.2.1"])
        #expect(!table.mayAccept("192.0.2.1"))
        #expect(!table.mayAccept("::ffff:192.0.2.1"))
        let exact = MicroHTTPDConnectionTable(perClientLimit: 1, trusted: [], requestTimeout: 0, ipv6Prefix: 128)
        _ = exact.opened(client: "2001:db8::1", socket: -1)
        #expect(!exact.mayAccept("2001:DB8::1"))
        #expect(exact.mayAccept("2001:db8::2"))
    }

    @Test func refusesAnIPv6PrefixOutOfRange() {
        for prefix in [0, 15, 129] {
            let server = HTTPServer(configuration: .init(ipv6ClientPrefix: prefix)) { _ in .text("") }
            #expect(throws: HTTPServerError.self) { try server.start() }
        }
    }

    /// A real IPv6 loopback connection: the address is canonical and the cap holds.
    @Test func servesAndCapsAnIPv6LoopbackClient() async throws {
        let server = HTTPServer(
            configuration: .init(host: "::1", requestTimeout: 600, maxConnectionsPerClient: 2)
        ) { request in .text(request.remoteAddress) }
        let port = try server.start()
        defer { Task { await server.stop() } }
        let held = (0..<2).compactMap { _ in RawIPv6Client(port: port) }
        #expect(held.count == 2)
        for client in held { client.write("GET /who HTTP/1.1\r\nHost: x\r\n") }  // headers never finished
        // Both held connections are counted before the third comes (however busy the machine).
        try await waitUntil("the two held connections to be counted") { server.openConnections == 2 }
        let third = try #require(RawIPv6Client(port: port))
        third.write("GET /who HTTP/1.0\r\n\r\n")
        let refused = third.readToEnd()
        #expect(refused.closed)
        #expect(!refused.text.contains("::1"))
        third.close()
        for client in held { client.close() }
        try await waitUntil("the held connections to close") { server.openConnections == 0 }
        let response = try await CurlHTTPClient().send(HTTPClientRequest(url: "http://[::1]:\(port)/who"))
        #expect(response.bodyText == "::1")
    }
}

/// A raw TCP client to [::1]:`port`.
struct RawIPv6Client {
    let fd: Int32

    init?(port: Int) {
        let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var remote = sockaddr_in6()
        remote.sin6_family = sa_family_t(AF_INET6)
        remote.sin6_port = in_port_t(UInt16(port).bigEndian)
        _ = inet_pton(AF_INET6, "::1", &remote.sin6_addr)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            return nil
        }
        self.fd = fd
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
    }

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

    func close() { Glibc.close(fd) }
}
