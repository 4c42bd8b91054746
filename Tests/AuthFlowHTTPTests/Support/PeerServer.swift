import AuthFlowHTTP
import Foundation
import Testing

/// An independent server (Python `http.server`) on loopback for one test.
struct PeerServer: Sendable {
    let peer: PythonPeer
    let port: Int
    let certificatePath: String?

    var base: String { "\(certificatePath == nil ? "http" : "https")://127.0.0.1:\(port)" }

    static func start(tls: String = "none") async throws -> PeerServer {
        let peer = try PythonPeer(script: "peer_server.py", arguments: ["--tls", tls])
        let portText = try await peer.value(for: "PORT")
        let port = try #require(Int(portText))
        let certificate = tls == "none" ? nil : try await peer.value(for: "CERT")
        return PeerServer(peer: peer, port: port, certificatePath: certificate)
    }

    /// Runs `body` with a fresh server and stops the server afterwards, whatever happens.
    static func with<T>(tls: String = "none", _ body: (PeerServer) async throws -> T) async throws -> T {
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

    /// Stops the peer and waits for it on a thread that may block: waiting on one of Swift's few cooperative
    /// threads would hold up every other test running meanwhile.
    func stop() async {
        let threads = BlockingThreads(threadCount: 1, name: "peer-stop")
        defer { threads.shutdown() }
        _ = try? await threads.run { peer.stop() }
    }
}
