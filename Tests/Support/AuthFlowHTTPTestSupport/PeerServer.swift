import AuthFlowCurl
import AuthFlowHTTP
import Foundation
import Testing

/// An independent server (Python `http.server`) on loopback for one test.
package struct PeerServer: Sendable {
    package let peer: PythonPeer
    package let port: Int
    package let certificatePath: String?

    package var base: String { "\(certificatePath == nil ? "http" : "https")://127.0.0.1:\(port)" }

    package static func start(tls: String = "none") async throws -> PeerServer {
        let peer = try PythonPeer(script: "peer_server.py", arguments: ["--tls", tls])
        let portText = try await peer.value(for: "PORT")
        let port = try #require(Int(portText))
        let certificate = tls == "none" ? nil : try await peer.value(for: "CERT")
        return PeerServer(peer: peer, port: port, certificatePath: certificate)
    }

    /// Runs `body` with a fresh server and stops the server afterwards, whatever happens.
    package static func with<T>(tls: String = "none", _ body: (PeerServer) async throws -> T) async throws -> T {
        let server = try await start(tls: tls)
        let result: T
        do {
            result = try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return result
    }

    /// How many requests for `path` the peer has received so far (a plain HTTP peer).
    package func seen(_ path: String) async throws -> Int {
        let response = try await CurlHTTPClient().send(
            HTTPClientRequest(url: base + "/seen?" + FormURLEncoding.encode([("path", path)])))
        return try #require(Int(response.bodyText), "the peer's /seen answered \(response.status)")
    }

    /// Stops the peer and waits for it on a thread that may block: waiting on one of Swift's few cooperative
    /// threads would hold up every other test running meanwhile.
    package func stop() async {
        let threads = BlockingThreads(threadCount: 1, name: "peer-stop")
        defer { threads.shutdown() }
        _ = try? await threads.run { peer.stop() }
    }
}
