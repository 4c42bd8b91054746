import AuthFlow
import AuthFlowCurl
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowTestSupport
import Foundation
import Testing

/// `authflow users`, `authflow sessions` and `authflow tokens` on the store of a running `authflow serve`, signed
/// in through a standalone `authflow sandbox`: what they print, that `sessions revoke` ends a live session and
/// that `users delete` revokes the stored token at the sandbox's revocation endpoint. (`tokens refresh` against
/// providers that issue refresh tokens: Tests/e2e/test_glewlwyd.py and test_idpyoidc.py.)
@Suite("authflow users and sessions")
struct AdminCommandTests {
    /// The stores the round trip runs on; PostgreSQL (and Redis for sessions) when `scripts/test.sh` started them.
    enum Store: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgres, postgresWithRedis

        var testDescription: String { rawValue }

        static var available: [Store] {
            let environment = ProcessInfo.processInfo.environment
            let required = environment["AUTHFLOW_REQUIRE_PEERS"] == "1"
            return allCases.filter { store in
                switch store {
                case .sqlite: return true
                case .postgres: return required || environment["AUTHFLOW_TEST_POSTGRES_URL"] != nil
                case .postgresWithRedis:
                    return required
                        || (environment["AUTHFLOW_TEST_POSTGRES_URL"] != nil
                            && environment["AUTHFLOW_TEST_REDIS_URL"] != nil)
                }
            }
        }

        /// The `store:` section's lines.
        func section(directory: String) throws -> [String] {
            let environment = ProcessInfo.processInfo.environment
            switch self {
            case .sqlite: return ["  kind: sqlite", "  path: \(directory)/authflow.sqlite"]
            case .postgres, .postgresWithRedis:
                let postgres = try #require(environment["AUTHFLOW_TEST_POSTGRES_URL"])
                var lines = ["  kind: postgres", "  postgres_url: \"\(postgres)\""]
                if self == .postgresWithRedis {
                    let redis = try #require(environment["AUTHFLOW_TEST_REDIS_URL"])
                    lines += ["  redis_url: \"\(redis)\"", "  redis_prefix: \"authflow-cli-\(UUID().uuidString):\""]
                }
                return lines
            }
        }
    }

    /// One store at a time: the PostgreSQL cases share a database, and every sandbox signs in the same
    /// preset identity.
    @Test(.serialized, arguments: Store.available)
    func listShowRevokeAndDeleteOnTheStoreOfARunningServer(_ store: Store) async throws {
        let scratch = try ScratchDirectory()
        let port = try LoopbackPort.unused()
        let app = "http://localhost:\(port)"
        let sandbox = try SandboxProcess([
            "--listen", "127.0.0.1:0", "--credentials-dir", scratch.path + "/sandbox", "--redirect-uri",
            "\(app)/auth/{provider}/callback",
        ])
        #expect(await sandbox.waitFor("Press Ctrl-C to stop."), "sandbox: \(sandbox.stderr)")
        let sandboxURL = try #require(sandbox.stdout.split(separator: "\n").first?.split(separator: " ").last)
        let fragment = try String(contentsOfFile: scratch.path + "/sandbox/providers.yaml", encoding: .utf8)
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let config = try scratch.write(
            "providers.yaml",
            ([
                "server:", "  listen: 127.0.0.1:\(port)", "  public_url: \(app)", "  secret: \(secret)",
                "  audit_log: audit.jsonl", "store:",
            ]
                + (try store.section(directory: scratch.path))).joined(separator: "\n") + "\n"
                + fragment.split(separator: "\n").filter { !$0.hasPrefix("#") }.joined(separator: "\n") + "\n")

        let server = try ServeProcess(["serve", "--config", config])
        let ready = try await server.lines(1)
        try #require(ready.first?.contains("app listening") == true, "serve: \(server.stderr)")
        defer { server.send(SIGTERM) }

        let browser = SandboxSignIn()
        let callback = try await browser.google(app: app)
        #expect(callback.status == 302 || callback.status == 303, "callback: \(callback.status)")
        let session = try await browser.get(app + "/auth/session")
        #expect(session.status == 200)
        let id = try #require(try JSONValue.parse(session.body)["user_id"]?.stringValue)

        // list --json holds the user (the PostgreSQL database may hold others from earlier runs).
        let listed = try await CLIRunner.authflowOffPool(["users", "list", "--json", "--config", config])
        #expect(listed.status == 0, "\(listed.stderr)")
        let users = try #require(try JSONValue.parse(Array(listed.stdout.utf8))["users"]?.arrayValue)
        let user = try #require(users.first { $0["id"] == .string(id) })
        let identity = try #require(user["identities"]?.arrayValue?.first)
        let subject = try #require(identity["subject"]?.stringValue)
        #expect(identity["created_at"]?.stringValue?.hasSuffix("Z") == true)
        #expect(!listed.stdout.contains("token"), "tokens are never listed")

        let text = try await CLIRunner.authflowOffPool(["users", "list", "--config", config])
        #expect(text.status == 0)
        #expect(
            text.stdout.split(separator: "\n").contains { $0.hasPrefix(id + "  ") && $0.hasSuffix("google:" + subject) }
        )

        // show by id and by PROVIDER:SUBJECT: the same user.
        let shown = try await CLIRunner.authflowOffPool(["users", "show", id, "--config", config])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(try JSONValue.parse(Array(shown.stdout.utf8)) == user)
        let byIdentity = try await CLIRunner.authflowOffPool(["users", "show", "google:" + subject, "--config", config])
        #expect(byIdentity.stdout == shown.stdout)

        // tokens refresh: the sandbox's Google issues a refresh token only for access_type=offline, which this
        // configuration does not ask for, so the refresh is a typed refusal (exit 1) that prints no token.
        let refresh = try await CLIRunner.authflowOffPool([
            "tokens", "refresh", "google:" + subject, "--config", config,
        ])
        #expect(refresh.status == 1, "\(refresh.stdout)")
        #expect(refresh.stderr.hasPrefix("authflow tokens refresh: no_refresh_token: "), "\(refresh.stderr)")
        #expect(refresh.stdout.isEmpty)

        // sessions revoke ends the live session: the server answers 401 once its session cache (1 s) lets go.
        let revoked = try await CLIRunner.authflowOffPool(["sessions", "revoke", "--user", id, "--config", config])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout == "ended 1 session of user \(id)\n")
        #expect(try await Self.sessionStatus(browser, app: app, becomes: 401))

        // The audit trail so far: the sign-in, then the administrator's revocation. Rotated (rename, SIGHUP), the
        // next events go to a new file.
        let audit = scratch.path + "/audit.jsonl"
        let first = try await Self.auditEvents(audit, until: ["sign_in.succeeded", "session.revoked", "admin.action"])
        #expect(first.contains { $0["event"] == "sign_in.succeeded" && $0["user_id"] == .string(id) })
        #expect(
            first.contains {
                $0["event"] == "session.revoked" && $0["actor"] == "admin" && $0["scope"] == "user"
                    && $0["sessions"] == .integer(1) && $0["user_id"] == .string(id)
            })
        #expect(first.contains { $0["event"] == "admin.action" && $0["action"] == "sessions.revoke" })
        try FileManager.default.moveItem(atPath: audit, toPath: audit + ".1")
        server.send(SIGHUP)
        #expect(try await eventually(poll: .milliseconds(20)) { FileManager.default.fileExists(atPath: audit) })

        // Signed in again, then deleted: the token is revoked at the sandbox, the session ends, the user is gone.
        _ = try await browser.google(app: app)
        #expect(try await browser.get(app + "/auth/session").status == 200)
        let before = try await Self.googleRevocations(sandbox: String(sandboxURL))
        let deleted = try await CLIRunner.authflowOffPool(["users", "delete", id, "--config", config])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == "deleted user \(id): 1 identity, 1 session ended\n")
        #expect(try await Self.googleRevocations(sandbox: String(sandboxURL)) == before + 1)
        #expect(try await Self.sessionStatus(browser, app: app, becomes: 401))

        let rotated = try await Self.auditEvents(
            audit, until: ["sign_in.succeeded", "account.deleted", "admin.action"])
        #expect(rotated.first?["event"] == "sign_in.succeeded")
        #expect(
            rotated.contains {
                $0["event"] == "account.deleted" && $0["actor"] == "admin" && $0["user_id"] == .string(id)
                    && $0["request_id"] == .null
            })
        #expect(rotated.contains { $0["event"] == "admin.action" && $0["action"] == "users.delete" })
        #expect(try Self.auditLines(audit + ".1").allSatisfy { $0["event"] != "account.deleted" })

        let gone = try await CLIRunner.authflowOffPool(["users", "show", id, "--config", config])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("user_not_found"))
        let again = try await CLIRunner.authflowOffPool(["users", "delete", id, "--config", config])
        #expect(again.status == 1)
        let noSessions = try await CLIRunner.authflowOffPool([
            "sessions", "revoke", "--user", "google:" + subject, "--config", config,
        ])
        #expect(noSessions.status == 1)
        #expect(noSessions.stderr.contains("user_not_found"))
    }

    /// The audit lines of `path` once each of `kinds` is among them (polled, at most 30 s).
    static func auditEvents(_ path: String, until kinds: Set<String>) async throws -> [JSONValue] {
        var lines: [JSONValue] = []
        let complete = try await eventually(poll: .milliseconds(20)) {
            lines = try auditLines(path)
            return kinds.isSubset(of: Set(lines.compactMap { $0["event"]?.stringValue }))
        }
        #expect(complete, "expected \(kinds.sorted()) in \(path), found \(lines)")
        return lines
    }

    static func auditLines(_ path: String) throws -> [JSONValue] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONValue.parse(Array($0.utf8))
        }
    }

    /// Polls `GET /auth/session` (at most 30 s) until it answers `status`.
    static func sessionStatus(_ browser: SandboxSignIn, app: String, becomes status: Int) async throws -> Bool {
        try await eventually(poll: .milliseconds(50)) { try await browser.get(app + "/auth/session").status == status }
    }

    /// How many Google revocations the sandbox has seen (`GET /_sandbox/revocations`).
    static func googleRevocations(sandbox: String) async throws -> Int {
        let response = try await CurlHTTPClient().send(HTTPClientRequest(url: sandbox + "/_sandbox/revocations"))
        let entries = try #require(try JSONValue.parse(response.body)["revocations"]?.arrayValue)
        return entries.filter { $0["provider"] == .string("google") }.count
    }

    @Test func usageErrorsExit2AndHelpNamesTheVerbs() async throws {
        for arguments in [
            ["users"], ["users", "frob"], ["users", "show"], ["users", "show", "a", "b"], ["users", "show", ""],
            ["users", "delete", "google:"], ["users", "list", "extra"], ["users", "show", "x", "--json"],
            ["sessions"], ["sessions", "revoke"], ["sessions", "revoke", "--user", ":sub"], ["sessions", "list"],
            ["tokens"], ["tokens", "frob"], ["tokens", "refresh"], ["tokens", "refresh", "google:"],
            ["tokens", "refresh", ":sub"], ["tokens", "refresh", "google:a", "google:b"],
        ] {
            let output = try await CLIRunner.authflowOffPool(arguments)
            #expect(output.status == 2, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains("usage: authflow \(arguments[0])"), "\(arguments)")
        }
        let users = try await CLIRunner.authflowOffPool(["help", "users"])
        #expect(users.status == 0)
        #expect(users.stdout.contains("authflow users delete USER"))
        let sessions = try await CLIRunner.authflowOffPool(["sessions", "--help"])
        #expect(sessions.status == 0)
        #expect(sessions.stdout.contains("authflow sessions revoke --user USER"))
        let tokens = try await CLIRunner.authflowOffPool(["help", "tokens"])
        #expect(tokens.status == 0)
        #expect(tokens.stdout.contains("authflow tokens refresh PROVIDER:SUBJECT"))
        let overview = try await CLIRunner.authflowOffPool(["--help"])
        #expect(overview.stdout.contains("users list") && overview.stdout.contains("sessions revoke"))
        #expect(overview.stdout.contains("tokens refresh"))
    }

    @Test func aMemoryStoreOrABadConfigurationExits1() async throws {
        let scratch = try ScratchDirectory()
        let memory = try scratch.write(
            "memory.yaml",
            """
            server:
              public_url: http://localhost:8080
              secret: 0123456789abcdef0123456789abcdef
            store:
              kind: memory
            providers:
              x:
                type: x
                client_id: abc
                client_secret: xyz

            """)
        let listed = try await CLIRunner.authflowOffPool(["users", "list", "--config", memory])
        #expect(listed.status == 1)
        #expect(listed.stderr.contains("found memory"))
        let missing = try await CLIRunner.authflowOffPool([
            "sessions", "revoke", "--user", "u", "--config", scratch.path + "/none.yaml",
        ])
        #expect(missing.status == 1)
        #expect(missing.stderr.hasPrefix("authflow sessions revoke: "))
    }

    /// A configuration of one X provider over a SQLite store in `scratch`; its path.
    static func sqliteConfiguration(in scratch: ScratchDirectory) throws -> String {
        try scratch.write(
            "providers.yaml",
            """
            server:
              public_url: http://localhost:8080
              secret: 0123456789abcdef0123456789abcdef
            store:
              kind: sqlite
              path: \(scratch.path)/authflow.sqlite
            providers:
              x:
                type: x
                client_id: abc
                client_secret: xyz

            """)
    }

    /// An empty SQLite store: the list is empty, and an unknown user is not found (exit 1).
    @Test func anEmptyStoreListsNothingAndFindsNoUser() async throws {
        let scratch = try ScratchDirectory()
        let config = try Self.sqliteConfiguration(in: scratch)
        let text = try await CLIRunner.authflowOffPool(["users", "list", "--config", config])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.isEmpty)
        let json = try await CLIRunner.authflowOffPool(["users", "list", "--json", "--config", config])
        #expect(json.stdout == "{\"users\":[]}\n")
        let show = try await CLIRunner.authflowOffPool(["users", "show", "nobody", "--config", config])
        #expect(show.status == 1)
        #expect(show.stderr == "authflow users show: user_not_found: expected a user with id 'nobody', found none\n")
    }

    /// A stored user whose id, subject, email and name carry terminal escapes, line breaks, BEL, C1 controls, a
    /// line separator and a bidirectional override, as a provider (or a shared database) could have stored them.
    static let forged = (
        id: "u-1\u{9B}", subject: "evil\u{1B}[2J\r\nu-2  2020-01-01T00:00:00Z  x:admin\u{07}\u{202E}\\",
        email: "e\u{2028}ve@example.com", name: "Eve\u{1B}]0;pwned\u{07}\u{85}"
    )

    /// Whether `text` holds a character a terminal could act on: C0 but the final newline, DEL, C1, U+2028,
    /// U+2029 or a bidirectional control.
    static func reachesTheTerminalRaw(_ text: String) -> Bool {
        text.dropLast().unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                return true
            default: return false
            }
        }
    }

    @Test func storedValuesWithControlCharactersArePrintedEscaped() async throws {
        let scratch = try ScratchDirectory()
        let config = try Self.sqliteConfiguration(in: scratch)
        let configuration = try ConfigurationLoader(environment: [:]).load(path: config)
        let options = try SignInServer.Options(configuration: configuration)
        let stores = try SignInServer.Stores.open(
            configuration.store, secret: options.secret, clock: SystemClock(), random: SystemRandom())
        let forged = Self.forged
        _ = try await stores.accounts.createUser(
            UserID(rawValue: forged.id), identity: IdentityKey(provider: "x", subject: forged.subject),
            profile: IdentityProfile(email: forged.email, emailVerified: true, name: forged.name))

        let text = try await CLIRunner.authflowOffPool(["users", "list", "--config", config])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(!Self.reachesTheTerminalRaw(text.stdout))
        #expect(text.stdout.utf8.filter { $0 == UInt8(ascii: "\n") }.count == 1, "one user, one line")
        #expect(text.stdout.hasPrefix("u-1\\u{9B}  "))
        #expect(
            text.stdout.hasSuffix(
                "x:evil\\u{1B}[2J\\u{0D}\\u{0A}u-2  2020-01-01T00:00:00Z  x:admin\\u{07}\\u{202E}\\\\\n"))

        // JSON output: every such character \u-escaped, and the values read back exactly.
        for arguments in [["users", "list", "--json"], ["users", "show", "x:" + forged.subject]] {
            let json = try await CLIRunner.authflowOffPool(arguments + ["--config", config])
            #expect(json.status == 0, "\(arguments): \(json.stderr)")
            #expect(!Self.reachesTheTerminalRaw(json.stdout), "\(arguments)")
            let parsed = try JSONValue.parse(Array(json.stdout.utf8))
            let user = try #require(parsed["users"]?.arrayValue?.first ?? parsed)
            #expect(user["id"]?.stringValue == forged.id)
            let identity = try #require(user["identities"]?.arrayValue?.first)
            #expect(identity["subject"]?.stringValue == forged.subject)
            #expect(identity["email"]?.stringValue == forged.email)
            #expect(identity["name"]?.stringValue == forged.name)
        }

        let revoked = try await CLIRunner.authflowOffPool([
            "sessions", "revoke", "--user", forged.id, "--config", config,
        ])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout == "ended 0 sessions of user u-1\\u{9B}\n")
        let unknown = try await CLIRunner.authflowOffPool(["users", "show", "nobody\u{1B}[31m", "--config", config])
        #expect(unknown.status == 1)
        #expect(!Self.reachesTheTerminalRaw(unknown.stderr))
        #expect(unknown.stderr.contains("'nobody\\u{1B}[31m'"))
    }
}
