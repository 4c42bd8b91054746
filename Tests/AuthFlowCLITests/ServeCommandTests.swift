import AuthFlowHTTP
import AuthFlowHTTPServer
import AuthFlowJOSE
import AuthFlowTestSupport
import Foundation
import Testing

/// `authflow serve` / `authflow demo` as a process: the Wave 2 output lines, signals, exit codes, durability.
@Suite("authflow serve and demo")
struct ServeCommandTests {
    /// A port for the process under test (see `LoopbackPort.unused()`).
    static func freePort() throws -> Int { try LoopbackPort.unused() }

    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "authflow-serve-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func config(port: Int, store: String = "kind: memory", secret: String? = nil) -> String {
        """
        server:
          listen: 127.0.0.1:\(port)
          public_url: http://localhost:\(port)
        \(secret.map { "  secret: \($0)" } ?? "")
        store:
          \(store)
        providers:
          google:
            type: google
            client_id: 123.apps.googleusercontent.com
            client_secret: ${GOOGLE_CLIENT_SECRET}
          apple:
            type: apple
            client_id: com.example.web
            team_id: ${APPLE_TEAM_ID}
            key_id: ${APPLE_KEY_ID}
            private_key_file: ${APPLE_PRIVATE_KEY_FILE}

        """
    }

    @Test func serveSandboxPrintsTheContractLinesAndStopsOnSIGTERM() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try Self.freePort()
        try Self.config(port: port).write(toFile: directory + "/providers.yaml", atomically: true, encoding: .utf8)
        let process = try ServeProcess(["serve", "--sandbox", "--config", directory + "/providers.yaml"])
        defer { process.send(SIGKILL) }
        let lines = try await process.lines(2)
        #expect(
            lines.first == "authflow: app listening at http://127.0.0.1:\(port) (public URL http://localhost:\(port))")
        let sandboxLine = try #require(lines.dropFirst().first)
        #expect(sandboxLine.hasPrefix("authflow: sandbox listening at http://127.0.0.1:"))
        #expect(lines.count == 2, "\(process.stderr)")

        let app = "http://localhost:\(port)"
        let browser = SandboxSignIn()
        #expect(try await browser.get(app + "/healthz").status == 200)
        #expect(try await browser.google(app: app).status == 302)
        let session = try await browser.get(app + "/auth/session")
        #expect(session.status == 200)
        #expect((try? JSONValue.parse(session.body))?["provider"] == .string("google"))
        let home = try await browser.get(app + "/")
        #expect(String(decoding: home.body, as: UTF8.self).contains("<ol id=\"trace\">"))

        process.send(SIGTERM)
        #expect(try await process.exit() == 0)
        #expect(!process.stderr.contains("test-secret"))
    }

    /// With `server.log_format: json` every line is JSON, the ready lines on standard output included.
    @Test func jsonLogsMakeTheReadyLinesJSONToo() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try Self.freePort()
        let config = Self.config(port: port).replacingOccurrences(
            of: "  public_url: http://localhost:\(port)\n",
            with: "  public_url: http://localhost:\(port)\n  log_format: json\n  metrics_listen: 127.0.0.1:0\n")
        #expect(config.contains("log_format: json"))
        try config.write(toFile: directory + "/providers.yaml", atomically: true, encoding: .utf8)
        let process = try ServeProcess(["serve", "--sandbox", "--config", directory + "/providers.yaml"])
        defer { process.send(SIGKILL) }
        let lines = try await process.lines(3)
        #expect(lines.count == 3, "\(process.stderr)")
        let objects = lines.compactMap { try? JSONValue.parse(Array($0.utf8)) }
        #expect(objects.count == 3, "\(lines)")
        #expect(
            objects.map { $0["event"]?.stringValue } == ["app listening", "metrics listening", "sandbox listening"])
        #expect(objects.allSatisfy { $0["level"]?.stringValue == "info" && $0["time"]?.stringValue != nil })
        #expect(objects.first?["url"]?.stringValue == "http://127.0.0.1:\(port)")
        #expect(objects.first?["public_url"]?.stringValue == "http://localhost:\(port)")
        #expect(objects.dropFirst().first?["url"]?.stringValue?.hasSuffix("/metrics") == true)
        #expect(objects.last?["url"]?.stringValue?.hasPrefix("http://127.0.0.1:") == true)
        #expect(try await SandboxSignIn().get("http://localhost:\(port)/healthz").status == 200)
        process.send(SIGTERM)
        #expect(try await process.exit() == 0)
        let output = (process.stdout + process.stderr).split(separator: "\n")
        #expect(!output.isEmpty)
        for line in output {
            #expect((try? JSONValue.parse(Array(line.utf8))) != nil, "not JSON: \(line)")
        }
    }

    @Test func demoStopsOnSIGINT() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try Self.freePort()
        try Self.config(port: port).write(toFile: directory + "/providers.yaml", atomically: true, encoding: .utf8)
        let process = try ServeProcess(["demo"], directory: directory)
        defer { process.send(SIGKILL) }
        let lines = try await process.lines(2)
        #expect(lines.count == 2, "\(process.stderr)")
        let home = try await SandboxSignIn().get("http://localhost:\(port)/")
        #expect(String(decoding: home.body, as: UTF8.self).contains("id=\"signin-google\""))
        process.send(SIGINT)
        #expect(try await process.exit() == 0)
    }

    @Test func aBadConfigurationExits1() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "server:\n  listen: 127.0.0.1:0\n  publik_url: http://localhost\nproviders: {}\n".write(
            toFile: directory + "/bad.yaml", atomically: true, encoding: .utf8)
        let process = try ServeProcess(["serve", "--config", directory + "/bad.yaml"])
        #expect(try await process.exit() == 1)
        #expect(process.stderr.contains("publik_url"))
        #expect(process.stdout.isEmpty)
    }

    @Test func serveWithoutSandboxNeedsTheSecret() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try Self.freePort()
        try Self.config(port: port).write(toFile: directory + "/providers.yaml", atomically: true, encoding: .utf8)
        let process = try ServeProcess(["serve", "--config", directory + "/providers.yaml"])
        #expect(try await process.exit() == 1)
        #expect(!process.stderr.isEmpty)
    }

    @Test func serveWarnsOfSecretFilesOthersMayReadWithoutShowingThem() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try Self.freePort()
        let secret = String(repeating: "inline-server-secret-", count: 2)
        try "google-secret-from-file\n".write(toFile: directory + "/google.secret", atomically: true, encoding: .utf8)
        let config = """
            server:
              listen: 127.0.0.1:\(port)
              public_url: http://localhost:\(port)
              secret: \(secret)
            store:
              kind: memory
            providers:
              google:
                type: google
                client_id: 123.apps.googleusercontent.com
                client_secret_file: google.secret

            """
        try config.write(toFile: directory + "/providers.yaml", atomically: true, encoding: .utf8)
        for file in ["/providers.yaml", "/google.secret"] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: directory + file)
        }
        let process = try ServeProcess(["serve", "--config", directory + "/providers.yaml"])
        defer { process.send(SIGKILL) }
        _ = try await process.lines(1)
        process.send(SIGTERM)
        #expect(try await process.exit() == 0)
        let warnings = process.stderr.split(separator: "\n").filter { $0.contains("readable by group or others") }
        #expect(warnings.count == 2, "\(process.stderr)")
        #expect(warnings.contains { $0.contains("chmod 600 \(directory)/providers.yaml") })
        #expect(warnings.contains { $0.contains("chmod 600 \(directory)/google.secret") })
        #expect(!process.stderr.contains(secret))
        #expect(!process.stderr.contains("google-secret-from-file"))
    }

    @Test func aBusyPortExits1() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let holder = HTTPServer(configuration: HTTPServer.Configuration(host: "127.0.0.1", port: 0)) { _ in .empty() }
        let port = try holder.start()
        try Self.config(port: port).write(toFile: directory + "/providers.yaml", atomically: true, encoding: .utf8)
        let process = try ServeProcess(["serve", "--sandbox", "--config", directory + "/providers.yaml"])
        let status = try await process.exit()
        await holder.stop()
        #expect(status == 1)
        #expect(process.stderr.contains("cannot start"))
        #expect(!process.stdout.contains("listening"))
    }

    @Test func usageErrorsExit2() async throws {
        let process = try ServeProcess(["serve", "--no-such-option", "x"])
        #expect(try await process.exit() == 2)
        let stray = try ServeProcess(["demo", "extra"])
        #expect(try await stray.exit() == 2)
    }
}
