import AuthFlowCurl
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowTestSupport
import Foundation
import Testing

/// Runs the built `authflow sandbox` verb as a child process.
final class SandboxProcess: Sendable {
    let child: RunningChild

    init(_ arguments: [String]) throws {
        child = try ChildProcess.start(executable: try CLIRunner.binary(), arguments: ["sandbox"] + arguments)
    }

    var stdout: String { child.stdoutText }
    var stderr: String { child.stderrText }

    /// Waits (bounded; far, since key generation on a busy machine is slow) until stdout contains `marker`.
    func waitFor(_ marker: String, timeout: Double = 120) async -> Bool {
        enum Outcome { case shown, ended }
        let outcome = await Waiting.value(within: .seconds(timeout), poll: .milliseconds(20)) { () -> Outcome? in
            stdout.contains(marker) ? .shown : child.isRunning ? nil : .ended
        }
        switch outcome {
        case .shown?: return true
        case nil: return false
        case .ended?:
            _ = await child.waitForExit(timeout: 5)  // the rest of its output
            return stdout.contains(marker)
        }
    }

    /// Sends SIGTERM (the sandbox stops and removes a credentials directory it created).
    func terminate() { child.signal(SIGTERM) }

    /// Waits (bounded) for the process to exit; terminates it if it overruns.
    func waitForExit(timeout: Double = 20) async -> Int32? {
        if let ended = await child.waitForExit(timeout: timeout) { return ended.status }
        terminate()
        return nil
    }

    /// SIGTERM first, so the sandbox cleans up after itself; SIGKILL after a grace period.
    deinit { child.stop(grace: 5) }
}

@Suite("authflow sandbox")
struct SandboxCommandTests {
    @Test func servesPrintsMaskedSecretsAndStopsOnSIGTERM() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-sandbox-cli-\(UUID().uuidString)"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let child = try SandboxProcess([
            "--listen", "127.0.0.1:0", "--credentials-dir", directory, "--redirect-uri",
            "http://localhost:3000/auth/{provider}/callback",
        ])
        #expect(await child.waitFor("Press Ctrl-C to stop."), "stdout: \(child.stdout)\nstderr: \(child.stderr)")
        let firstLine = try #require(child.stdout.split(separator: "\n").first)
        let baseURL = try #require(firstLine.split(separator: " ").last.map(String.init))
        #expect(baseURL.hasPrefix("http://127.0.0.1:"))

        let client = CurlHTTPClient()
        let discovery = try await client.send(
            HTTPClientRequest(url: baseURL + "/google/.well-known/openid-configuration"))
        #expect(discovery.status == 200)
        #expect(try JSONValue.parse(discovery.body)["issuer"] == .string(baseURL + "/google"))

        for name in ["google_client_secret", "facebook_client_secret", "x_client_secret"] {
            let secret = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
            #expect(secret.count >= 32)
            #expect(!child.stdout.contains(secret), "\(name) printed in full")
            #expect(child.stdout.contains(String(secret.prefix(4)) + "…"))
        }
        #expect(child.stdout.contains("http://localhost:3000/auth/apple/callback"))
        #expect(child.stdout.contains(".p8"))

        child.terminate()  // SIGTERM
        #expect(await child.waitForExit() == 0)
        #expect(child.stderr.contains("stopping"))
        // A directory the user named is kept.
        #expect(FileManager.default.fileExists(atPath: directory + "/providers.yaml"))
    }

    @Test func refusesABadListenAddressAsAUsageError() async throws {
        let child = try SandboxProcess(["--listen", "not-an-address"])
        #expect(await child.waitForExit() == 2)
        #expect(child.stderr.contains("--listen"))
    }

    @Test(arguments: ["0", "-5", "10000001", "many", ""])
    func refusesABadMaxPending(value: String) async throws {
        let child = try SandboxProcess(["--listen", "127.0.0.1:0", "--max-pending", value])
        #expect(await child.waitForExit() == 2)
        #expect(child.stderr.contains("--max-pending: expected a whole number from 1 to 10000000"), "\(child.stderr)")
    }

    @Test func startsWithARaisedMaxPending() async throws {
        let child = try SandboxProcess(["--listen", "127.0.0.1:0", "--max-pending", "200000"])
        #expect(await child.waitFor("Press Ctrl-C to stop."), "stdout: \(child.stdout)\nstderr: \(child.stderr)")
        child.terminate()
        #expect(await child.waitForExit() == 0)
    }

    /// `--dpop` makes the OpenID issuer advertise the DPoP proof algorithms it checks; without it, none.
    @Test(arguments: [true, false])
    func advertisesDPoPOnlyWithTheFlag(dpop: Bool) async throws {
        let child = try SandboxProcess(["--listen", "127.0.0.1:0"] + (dpop ? ["--dpop"] : []))
        #expect(await child.waitFor("Press Ctrl-C to stop."), "stdout: \(child.stdout)\nstderr: \(child.stderr)")
        let firstLine = try #require(child.stdout.split(separator: "\n").first)
        let baseURL = try #require(firstLine.split(separator: " ").last.map(String.init))
        let discovery = try await CurlHTTPClient().send(
            HTTPClientRequest(url: baseURL + "/google/.well-known/openid-configuration"))
        let algorithms = try JSONValue.parse(discovery.body)["dpop_signing_alg_values_supported"]
        #expect(algorithms == (dpop ? .array(["ES256", "EdDSA", "PS256"]) : nil))
        child.terminate()
        #expect(await child.waitForExit() == 0)
    }

    @Test func failsWhenTheAddressCannotBeBound() async throws {
        let child = try SandboxProcess(["--listen", "192.0.2.1:1"])
        #expect(await child.waitForExit() == 1)
        #expect(child.stderr.contains("cannot start the sandbox"))
    }
}
