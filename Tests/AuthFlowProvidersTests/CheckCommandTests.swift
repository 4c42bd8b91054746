import AuthFlowJOSE
import AuthFlowTestSupport
import Foundation
import Testing

/// Runs the built `authflow check` binary on temporary files.
@Suite struct CheckCommandTests {
    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func binary() throws -> String {
        try BuiltProduct.path(named: "authflow")
    }

    static func check(_ arguments: [String], environment: [String: String] = [:]) throws -> Output {
        let output = try ChildProcess.run(
            executable: try binary(), arguments: ["check"] + arguments, environment: environment, timeout: 60)
        return Output(status: output.status, stdout: output.stdoutText, stderr: output.stderrText)
    }

    /// A temporary directory removed when `body` returns.
    static func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-check-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    @Test func acceptsAValidConfiguration() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("providers.yaml")
            try """
            server:
              public_url: https://app.example
              secret: ${SECRET}
            providers:
              google:
                type: google
                client_id: abc
                client_secret: ${GOOGLE_SECRET}
              x:
                type: x
                client_id: abc
                client_secret: xyz

            """.write(to: file, atomically: true, encoding: .utf8)
            let result = try Self.check(
                ["--config", file.path],
                environment: ["SECRET": String(repeating: "k", count: 40), "GOOGLE_SECRET": "g"])
            #expect(result.status == 0)
            #expect(result.stdout == "OK: \(file.path): 2 providers: google (google, oidc), x (x, oauth2)\n")
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func printsEveryIssueAndExitsOne() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("bad.yaml")
            try """
            providers:
              apple:
                type: apple
                client_id: com.example.web
                redirect_uri: https://app.example/cb
                capabilities: { pkce: true }
              fb:
                type: facebok
                client_id: "1"

            """.write(to: file, atomically: true, encoding: .utf8)
            let result = try Self.check(["--config=\(file.path)"])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("\(file.path):6:21: provider 'apple' (type apple) cannot enable pkce: "))
            #expect(result.stderr.contains("requires 'team_id'"))
            #expect(
                result.stderr.contains(
                    "\(file.path):8:11: unknown provider type 'facebok' for provider 'fb'; did you mean 'facebook'?"))
            #expect(result.stderr.hasSuffix("\(file.path): 5 problems\n"))
        }
    }

    @Test func reportsReadProblemsAndCapabilityRefusalsInOneRun() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("both.yaml")
            try """
            providers:
              google:
                type: google
                client_id: abc
                client_secret: s
                redirect_uri: https://app.example/cb
                scopse: [openid]
              apple:
                type: apple
                client_id: com.example.web
                team_id: ABCDE12345
                key_id: KEY1234567
                private_key_file: key.p8
                redirect_uri: https://app.example/cb
                capabilities: { pkce: true }

            """.write(to: file, atomically: true, encoding: .utf8)
            try JWK.generateP256(keyID: "KEY1234567").pkcs8PEM().write(
                to: directory.appendingPathComponent("key.p8"), atomically: true, encoding: .utf8)
            let result = try Self.check(["--config", file.path])
            #expect(result.status == 1)
            #expect(result.stderr.contains("\(file.path):7:5: unknown key \"scopse\""), "\(result.stderr)")
            #expect(
                result.stderr.contains("\(file.path):15:21: provider 'apple' (type apple) cannot enable pkce: "),
                "\(result.stderr)")
            #expect(result.stderr.hasSuffix("\(file.path): 2 problems\n"), "\(result.stderr)")
        }
    }

    @Test func reportsAMissingFileAsInvalid() throws {
        let result = try Self.check(["--config", "/nonexistent/providers.yaml"])
        #expect(result.status == 1)
        #expect(!result.stderr.isEmpty)
    }

    @Test func refusesBadUsageWithExitTwo() throws {
        #expect(try Self.check(["--config"]).status == 2)
        #expect(try Self.check(["--verbose"]).status == 2)
        let help = try Self.check(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("usage: authflow check"))
    }
}
