import AuthFlowHTTP
import AuthFlowJOSE
import Foundation
import Testing

struct BinaryNotFound: Error, CustomStringConvertible {
    var description: String { "the authflow binary was not found next to the test bundle" }
}

/// Runs the built `authflow sandbox` verb as a child process.
final class SandboxProcess: Sendable {
    let process: Process
    private let output = Mutexed<[UInt8]>([])
    private let errors = Mutexed<[UInt8]>([])

    static func binary() throws -> String {
        var candidates = [URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()]
        for bundle in Bundle.allBundles { candidates.append(bundle.bundleURL.deletingLastPathComponent()) }
        for directory in candidates {
            var url = directory
            for _ in 0..<4 {
                let path = url.appendingPathComponent("authflow").path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: path)
                {
                    return path
                }
                url = url.deletingLastPathComponent()
            }
        }
        throw BinaryNotFound()
    }

    init(_ arguments: [String]) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.binary())
        process.arguments = ["sandbox"] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }  // end of file
            output.update { $0 += data }
        }
        err.fileHandleForReading.readabilityHandler = { [errors] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }  // end of file
            errors.update { $0 += data }
        }
        try process.run()
    }

    var stdout: String { String(decoding: output.get(), as: UTF8.self) }
    var stderr: String { String(decoding: errors.get(), as: UTF8.self) }

    /// Waits (bounded) until stdout contains `marker`.
    func waitFor(_ marker: String, timeout: Double = 30) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stdout.contains(marker) { return true }
            if !process.isRunning { return stdout.contains(marker) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Waits (bounded) for the process to exit; kills it if it overruns.
    func waitForExit(timeout: Double = 20) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning {
            process.terminate()
            return nil
        }
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
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

        child.process.terminate()  // SIGTERM
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

    @Test func failsWhenTheAddressCannotBeBound() async throws {
        let child = try SandboxProcess(["--listen", "192.0.2.1:1"])
        #expect(await child.waitForExit() == 1)
        #expect(child.stderr.contains("cannot start the sandbox"))
    }
}
