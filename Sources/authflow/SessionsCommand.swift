import AuthFlow
import AuthFlowDeployment
import Foundation

/// `authflow sessions revoke --user USER [--config F]`: ends every session of a user in the configured
/// session store (SQLite, PostgreSQL or Redis), cookie and bearer sessions alike.
struct SessionsCommand: Command {
    static let name = "sessions"

    static let usage = """
        usage: authflow sessions revoke --user USER [--config FILE]

          revoke          ends every session of the user (what "sign out everywhere" does); running
                          servers refuse them from their next request (within the session cache's
                          lifetime, 1 s by default)
          --user USER     a user id, or PROVIDER:SUBJECT for the user that identity is linked to
          --config FILE   the configuration whose store (store.kind sqlite or postgres, store.redis_url)
                          to use (default: providers.yaml)

        Prints how many sessions ended. Exit codes: 0 done, 1 no such user or the configuration or store
        refused (reason on stderr), 2 usage error.
        """

    var user: String
    var path: String

    static func parse(_ arguments: [String]) throws(ValidationError) -> SessionsCommand? {
        if arguments.first == "--help" || arguments.first == "-h" { return nil }
        guard arguments.first == "revoke" else {
            throw ValidationError(
                "command", expected: "'authflow sessions revoke --user USER'",
                found: arguments.first.map { "the unknown sessions command \(ValidationError.quoted($0))" } ?? "none")
        }
        let parsed = try CommandIO.parse(Array(arguments.dropFirst()), options: ["config", "user"])
        if parsed.help { return nil }
        try parsed.requireNoPositional()
        guard let user = parsed.last("user") else {
            throw ValidationError("--user", expected: "a USER (the option is required)", found: "none")
        }
        return SessionsCommand(user: user, path: parsed.last("config") ?? "providers.yaml")
    }

    func validate() throws(ValidationError) {
        try CommandIO.requireNonEmpty(path, option: "config", expected: "a FILE")
        do throws(ValidationError) {
            try UsersCommand.validateUser(user)
        } catch {
            throw ValidationError("--user", expected: error.expected, found: error.found)
        }
    }

    func run() async -> ExitCode {
        do throws(AdminStores.Failure) {
            let admin = try AdminStores.open(path: path)
            defer { admin.close() }
            let account = try await admin.user(user)
            let ended: Int
            do throws(StoreError) {
                ended = try await admin.stores.sessions.endSessions(of: account.id)
            } catch {
                throw AdminStores.Failure(description: "store: \(error)")
            }
            admin.options.audit?.record(.sessionsRevoked(account.id, actor: .admin, scope: "user", count: ended))
            admin.recordAdminAction("sessions.revoke", user: account.id, details: ["sessions": .integer(Int64(ended))])
            CommandIO.out(
                "ended \(ended == 1 ? "1 session" : "\(ended) sessions") of user \(TerminalText.escaped(account.id.rawValue))"
            )
            return .success
        } catch {
            return error.report("sessions revoke")
        }
    }
}
