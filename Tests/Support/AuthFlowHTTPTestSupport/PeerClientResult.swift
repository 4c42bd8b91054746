import AuthFlowTestSupport
import Foundation
import Testing

/// One request made by an independent client (Python `http.client`).
package struct PeerClientResult: Sendable {
    package let status: Int?
    package let headers: [[String]]
    package let body: String
    package let error: String?

    package func values(_ name: String) -> [String] {
        headers.filter { $0.count == 2 && $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }

    package static func run(_ method: String, _ url: String, arguments: [String] = []) async throws -> PeerClientResult
    {
        let interpreter = try #require(PythonPeer.interpreter, "no Python interpreter (set AUTHFLOW_PYTHON)")
        let output = try await ChildProcess.run(
            executable: interpreter, arguments: [PythonPeer.supportFile("peer_client.py"), method, url] + arguments,
            timeout: 20)
        if output.timedOut { throw PeerError(message: "the Python client did not finish within 20 s") }
        let data = Data(output.stdout)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return PeerClientResult(
            status: object["status"] as? Int, headers: object["headers"] as? [[String]] ?? [],
            body: object["body"] as? String ?? "", error: object["error"] as? String)
    }
}
