import AuthFlowTestSupport
import Foundation
import Testing

/// A provider's endpoints behind TLS on `https://127.0.0.1:PORT`, served by `Python/tls_provider.py` run with
/// `AUTHFLOW_PYTHON`: in `trusted` mode it presents a certificate from the authority at ``authorityPath`` and
/// relays requests to the sandbox; the other modes fail the connection the way a broken or hostile TLS front
/// does. Stopped (stdin closed, then signalled) when released.
final class TLSProvider: Sendable {
    /// How the listener treats new connections.
    enum Mode: String {
        /// TLS with a certificate the authority issued; requests are relayed to the sandbox.
        case trusted
        /// TLS with a self-signed certificate nobody trusts.
        case untrusted
        /// No TLS: plain-text bytes in answer to the client's hello, then the connection closes.
        case garbage
        /// Every connection closed as soon as it is accepted.
        case close
    }

    private let child: RunningChild
    /// `https://127.0.0.1:PORT`.
    let baseURL: String
    /// The PEM file of the authority that issued the `trusted` certificate.
    let authorityPath: String

    /// The interpreter named by `AUTHFLOW_PYTHON`, if set.
    static var interpreter: String? {
        ProcessInfo.processInfo.environment["AUTHFLOW_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether `AUTHFLOW_PYTHON` runs and has the `cryptography` package (the tests fail instead of being
    /// skipped when `AUTHFLOW_REQUIRE_PEERS=1`).
    static let available: Bool = {
        guard let interpreter else { return false }
        let probe = try? ChildProcess.run(
            executable: interpreter, arguments: ["-c", "import ssl, cryptography"], timeout: 60)
        return probe?.termination == .exited(0)
    }()

    static var required: Bool { ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1" }

    init() async throws {
        let interpreter = try #require(Self.interpreter, "no Python interpreter (set AUTHFLOW_PYTHON)")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Python/tls_provider.py").path
        child = try ChildProcess.start(
            executable: interpreter, arguments: ["-u", script], stdin: .pipe, stderr: .capture)
        let authority = try await Self.value("CA", from: child)
        let port = try await Self.value("PORT", from: child)
        authorityPath = authority
        baseURL = "https://127.0.0.1:\(port)"
    }

    /// Sends requests to `url` (the sandbox) from now on.
    func forward(to url: String) async throws {
        try child.write(Array("forward \(url)\n".utf8))
        _ = try await Self.value("FORWARD", from: child, allowEmpty: true)
    }

    /// Treats new connections as `mode` from now on (the listener acknowledges before this returns).
    func set(_ mode: Mode) async throws {
        try child.write(Array("mode \(mode.rawValue)\n".utf8))
        #expect(try await Self.value("MODE", from: child) == mode.rawValue)
    }

    /// The value of the next stdout line, which must start with `key`.
    private static func value(_ key: String, from child: RunningChild, allowEmpty: Bool = false) async throws
        -> String
    {
        let line = try await child.readLine(timeout: 30)
        guard let line, line == key || line.hasPrefix(key + " ") else {
            throw PeerFailure(expected: key, found: line, stderr: child.stderrText)
        }
        let value = String(line.dropFirst(key.count)).trimmingCharacters(in: .whitespaces)
        guard allowEmpty || !value.isEmpty else {
            throw PeerFailure(expected: key, found: line, stderr: child.stderrText)
        }
        return value
    }

    deinit {
        child.closeStdin()
        _ = child.stop(grace: 5)
    }
}

/// The TLS listener said something other than what the test waited for.
struct PeerFailure: Error, CustomStringConvertible {
    let expected: String
    let found: String?
    let stderr: String
    var description: String {
        "expected a \(expected) line from tls_provider.py, found \(found.map { "'\($0)'" } ?? "the end of its output")"
            + (stderr.isEmpty ? "" : "; its stderr: \(stderr.suffix(2000))")
    }
}
