import AuthFlowHTTPTestSupport
import Foundation
import Testing

@testable import AuthFlowCurl
@testable import AuthFlowHTTP

/// Certificate verification and the TLS 1.2 floor, against a Python TLS server with a
/// self-signed certificate made for each test, for requests sent from a task (the multi loop) and from a
/// handler thread (the transfer runs on that thread).
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
            let client = CurlHTTPClient(configuration: .init(), directSlots: CurlDirectSlots(limit: 4))
            for caller in Caller.allCases {
                let code = await code {
                    try await caller.send(with: client, HTTPClientRequest(url: server.base + "/echo"))
                }
                #expect(code == .tlsFailure, "from \(caller)")
            }
        }
    }

    @Test func acceptsCertificateFromConfiguredAuthority() async throws {
        try await PeerServer.with(tls: "modern") { server in
            let client = CurlHTTPClient(
                configuration: .init(caBundlePath: server.certificatePath), directSlots: CurlDirectSlots(limit: 4))
            for caller in Caller.allCases {
                let response = try await caller.send(with: client, HTTPClientRequest(url: server.base + "/echo"))
                #expect(response.status == 200, "from \(caller)")
            }
        }
    }

    @Test func refusesCertificateForAnotherHost() async throws {
        try await PeerServer.with(tls: "modern") { server in
            // The certificate names 127.0.0.1 only; "localhost" reaches the same server.
            let client = CurlHTTPClient(
                configuration: .init(caBundlePath: server.certificatePath), directSlots: CurlDirectSlots(limit: 4))
            for caller in Caller.allCases {
                let code = await code {
                    try await caller.send(with: client, HTTPClientRequest(url: "https://localhost:\(server.port)/echo"))
                }
                #expect(code == .tlsFailure, "from \(caller)")
            }
        }
    }

    @Test func refusesProtocolsOlderThanTLS12() async throws {
        try await PeerServer.with(tls: "legacy") { server in
            let client = CurlHTTPClient(
                configuration: .init(caBundlePath: server.certificatePath), directSlots: CurlDirectSlots(limit: 4))
            for caller in Caller.allCases {
                let code = await code {
                    try await caller.send(with: client, HTTPClientRequest(url: server.base + "/echo"))
                }
                #expect(code == .tlsFailure, "from \(caller)")
            }
        }
    }
}
