import AuthFlowHTTP
import Foundation
import Testing

/// Certificate verification and the TLS 1.2 floor, against a Python TLS server with a
/// self-signed certificate made for each test.
@Suite(
    "CurlHTTPClient TLS",
    .enabled(
        if: PythonPeer.tlsAvailable || PythonPeer.requirePeers, "needs Python with the cryptography package"),
    .timeLimit(.minutes(1)))
struct CurlHTTPClientTLSTests {
    private func code(of body: () async throws -> HTTPClientResponse) async -> HTTPClientError.Code? {
        do {
            _ = try await body()
            return nil
        } catch let error as HTTPClientError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func refusesUntrustedCertificate() async throws {
        try await PeerServer.with(tls: "modern") { server in
            let client = CurlHTTPClient()
            let code = await code { try await client.send(HTTPClientRequest(url: server.base + "/echo")) }
            #expect(code == .tlsFailure)
        }
    }

    @Test func acceptsCertificateFromConfiguredAuthority() async throws {
        try await PeerServer.with(tls: "modern") { server in
            let client = CurlHTTPClient(configuration: .init(caBundlePath: server.certificatePath))
            let response = try await client.send(HTTPClientRequest(url: server.base + "/echo"))
            #expect(response.status == 200)
        }
    }

    @Test func refusesCertificateForAnotherHost() async throws {
        try await PeerServer.with(tls: "modern") { server in
            // The certificate names 127.0.0.1 only; "localhost" reaches the same server.
            let client = CurlHTTPClient(configuration: .init(caBundlePath: server.certificatePath))
            let code = await code {
                try await client.send(HTTPClientRequest(url: "https://localhost:\(server.port)/echo"))
            }
            #expect(code == .tlsFailure)
        }
    }

    @Test func refusesProtocolsOlderThanTLS12() async throws {
        try await PeerServer.with(tls: "legacy") { server in
            let client = CurlHTTPClient(configuration: .init(caBundlePath: server.certificatePath))
            let code = await code { try await client.send(HTTPClientRequest(url: server.base + "/echo")) }
            #expect(code == .tlsFailure)
        }
    }
}
