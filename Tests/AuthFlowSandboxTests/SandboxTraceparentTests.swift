import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

/// `GET /_sandbox/traceparents`: the `traceparent` headers relying parties sent to provider endpoints.
@Suite struct SandboxTraceparentTests {
    func request(_ path: String, headers: HTTPHeaders = [:], from address: String = "127.0.0.1") -> HTTPServerRequest {
        HTTPServerRequest(method: "GET", path: path, query: [], headers: headers, remoteAddress: address)
    }

    @Test func keepsTheTraceparentsOfProviderRequestsForLoopbackCallers() async throws {
        let sandbox = SandboxIdentityProvider(
            configuration: SandboxConfiguration(
                publicBaseURL: "http://127.0.0.1:5555", signingKeys: try SandboxHarness.sharedKeys.get()))
        let header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        _ = await sandbox.handle(request("/google/jwks", headers: ["traceparent": header]))
        _ = await sandbox.handle(request("/google/jwks"))
        _ = await sandbox.handle(request("/google/jwks", headers: ["traceparent": String(repeating: "a", count: 200)]))
        let answer = await sandbox.handle(request("/_sandbox/traceparents"))
        #expect(answer.status == 200)
        let body = try JSONValue.parse(answer.body)
        let entries = body["traceparents"]?.arrayValue ?? []
        #expect(entries.count == 1)
        #expect(entries.first?["traceparent"]?.stringValue == header)
        #expect(entries.first?["path"]?.stringValue == "/google/jwks")
        // Not for a caller off the loopback.
        #expect(await sandbox.handle(request("/_sandbox/traceparents", from: "192.0.2.1")).status == 404)
    }
}
