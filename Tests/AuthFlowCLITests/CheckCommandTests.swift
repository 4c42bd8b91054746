import AuthFlowJOSE
import Foundation
import Testing

/// Runs the built `authflow check` binary on temporary files.
@Suite struct CheckCommandTests {
    static func check(_ arguments: [String], environment: [String: String] = [:]) throws -> CLIRunner.Output {
        try CLIRunner.authflow(["check"] + arguments, environment: environment)
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

    @Test func acceptsAnAuditLogAndRefusesOneThatIsNoFileNameByItsPosition() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("providers.yaml")
            for (value, status) in [("stderr", Int32(0)), ("/var/log/authflow/audit.jsonl", 0), ("/var/log/", 1)] {
                try """
                server:
                  public_url: https://app.example
                  secret: \(String(repeating: "k", count: 40))
                  audit_log: \(value)
                providers:
                  x:
                    type: x
                    client_id: abc
                    client_secret: xyz

                """.write(to: file, atomically: true, encoding: .utf8)
                let result = try Self.check(["--config", file.path])
                #expect(result.status == status, "\(value): \(result.stderr)")
                if status == 1 {
                    #expect(result.stderr.contains("\(file.path):4:14: expected a file name"), "\(result.stderr)")
                }
            }
        }
    }

    @Test func notesAGroupRuleThatNamesNoProviderWhileSeveralAreConfigured() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("providers.yaml")
            func check(groups: String) throws -> CLIRunner.Output {
                try """
                server:
                  public_url: https://app.example
                  secret: \(String(repeating: "k", count: 40))
                  access:
                    groups: \(groups)
                providers:
                  google:
                    client_id: abc
                    client_secret: g
                  x:
                    client_id: abc
                    client_secret: xyz

                """.write(to: file, atomically: true, encoding: .utf8)
                return try Self.check(["--config", file.path])
            }
            let unqualified = try check(groups: "[admins, \"google:ops\"]")
            #expect(unqualified.status == 0)
            #expect(
                unqualified.stdout.hasSuffix(
                    "note: server.access.groups names admins without a provider, so that name from any of the 2 "
                        + "configured providers passes it; set server.access.groups to PROVIDER:admins (or "
                        + "PROVIDER/TENANT:admins), naming the provider that should vouch for it\n"))
            let qualified = try check(groups: "[\"google:admins\"]")
            #expect(qualified.status == 0)
            #expect(!qualified.stdout.contains("note:"))
            let tenant = try check(groups: "[\"x/t:admins\"]")
            #expect(tenant.status == 1)
            #expect(
                tenant.stderr.contains("\(file.path):5:14: expected PROVIDER/TENANT only for a provider with tenants"))
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

    @Test func reportsEachUnsetVariableAndMissingKeyOnce() throws {
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("providers.yaml")
            try """
            server:
              public_url: https://app.example
              secret: ${UNSET_SECRET}
            providers:
              google:
                client_id: ${UNSET_CLIENT_ID}
                client_secret: ${UNSET_CLIENT_SECRET}
              x:
                client_secret_file: ${UNSET_FILE}

            """.write(to: file, atomically: true, encoding: .utf8)
            let result = try Self.check(["--config", file.path], environment: [:])
            #expect(result.status == 1)
            let messages = result.stderr.split(separator: "\n").filter { $0.hasPrefix(file.path + ":") }
            for name in ["UNSET_SECRET", "UNSET_CLIENT_ID", "UNSET_CLIENT_SECRET", "UNSET_FILE"] {
                #expect(
                    messages.filter { $0.contains("environment variable \(name) is not set") }.count == 1, "\(name)")
            }
            // A key written with an unset variable is not reported again as missing; an absent one is, once.
            #expect(!messages.contains { $0.contains("google") && $0.contains("requires") })
            #expect(messages.filter { $0.contains("client_id") && $0.contains("providers.x") }.count == 1)
            #expect(!messages.contains { $0.contains("requires 'client_id'") })
            #expect(result.stderr.hasSuffix("\(file.path): 5 problems\n"), "\(result.stderr)")
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

    /// `--connect` reaches PostgreSQL and Redis (the servers `scripts/test.sh` starts) without writing, and fails
    /// with a typed message when a store cannot be reached; the URLs' passwords are never printed.
    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["AUTHFLOW_TEST_POSTGRES_URL"] != nil
                || ProcessInfo.processInfo.environment["AUTHFLOW_REQUIRE_PEERS"] == "1"))
    func connectsToTheConfiguredStores() throws {
        let environment = ProcessInfo.processInfo.environment
        let postgres = try #require(environment["AUTHFLOW_TEST_POSTGRES_URL"])
        let redis = try #require(environment["AUTHFLOW_TEST_REDIS_URL"])
        try Self.withDirectory { directory in
            let file = directory.appendingPathComponent("providers.yaml")
            try """
            server:
              public_url: https://app.example
              secret: 0123456789abcdef0123456789abcdef
            store:
              kind: postgres
              postgres_url: ${DATABASE_URL}
              redis_url: ${REDIS_URL}
            providers:
              x:
                type: x
                client_id: abc
                client_secret: xyz

            """.write(to: file, atomically: true, encoding: .utf8)
            let reached = try Self.check(
                ["--config", file.path, "--connect"], environment: ["DATABASE_URL": postgres, "REDIS_URL": redis])
            #expect(reached.status == 0, "\(reached.stderr)")
            #expect(reached.stdout.contains("store: postgres: connected"))
            #expect(reached.stdout.contains("store: redis: connected"))
            let password = try #require(URLComponents(string: redis)?.password)
            #expect(!reached.stdout.contains(password) && !reached.stderr.contains(password))

            let refused = try Self.check(
                ["--config", file.path, "--connect"],
                environment: ["DATABASE_URL": "postgresql://authflow@127.0.0.1:1/authflow", "REDIS_URL": redis])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("store: postgres: backend_failure: expected to connect to PostgreSQL"))

            // libpq quotes a URL it cannot parse, password included; check never prints it.
            for unparsable in [
                "postgresql://authflow:Pg-Secret-77%zz@127.0.0.1:1/authflow",
                "postgresql://authflow:Pg-Secret-77@[::1/authflow",
            ] {
                let refusedURL = try Self.check(
                    ["--config", file.path, "--connect"], environment: ["DATABASE_URL": unparsable, "REDIS_URL": redis])
                #expect(refusedURL.status == 1)
                #expect(refusedURL.stderr.contains("store: postgres: invalid_value"), "\(refusedURL.stderr)")
                #expect(!refusedURL.stdout.contains("Pg-Secret-77") && !refusedURL.stderr.contains("Pg-Secret-77"))
            }
        }
    }
}
