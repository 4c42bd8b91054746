import Foundation
import Testing

/// One request made by an independent client (Python `http.client`).
struct PeerClientResult: Sendable {
    let status: Int?
    let headers: [[String]]
    let body: String
    let error: String?

    func values(_ name: String) -> [String] {
        headers.filter { $0.count == 2 && $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }

    static func run(_ method: String, _ url: String, arguments: [String] = []) async throws -> PeerClientResult {
        let interpreter = try #require(PythonPeer.interpreter, "no Python interpreter (set AUTHFLOW_PYTHON)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: interpreter)
        process.arguments = [PythonPeer.supportFile("peer_client.py"), method, url] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning {
            process.terminate()
            throw PeerError(message: "the Python client did not finish within 20 s")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return PeerClientResult(
            status: object["status"] as? Int, headers: object["headers"] as? [[String]] ?? [],
            body: object["body"] as? String ?? "", error: object["error"] as? String)
    }
}
