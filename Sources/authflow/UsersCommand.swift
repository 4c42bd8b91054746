import AuthFlow
import AuthFlowDeployment
import AuthFlowHTTP
import AuthFlowJOSE
import Foundation

/// `authflow users list [--json] | show USER | delete USER | passkeys delete USER ID [--config F]`: the users of the
/// configured store.
struct UsersCommand: Command {
    static let name = "users"

    static let usage = """
        usage: authflow users list [--json] [--config FILE]
               authflow users show USER [--config FILE]
               authflow users delete USER [--config FILE]
               authflow users passkeys delete USER ID [--config FILE]

          list            every user: id, creation time, identities (PROVIDER:SUBJECT), one user a line;
                          --json: {"users": [USER, ...]} with the fields of show
          show USER       the user as JSON: {"id", "created_at", "identities": [{"provider", "subject",
                          "email", "email_verified", "name", "disabled", "created_at", "updated_at"}],
                          "passkeys": [{"id", "provider", "name", "created_at", "last_used_at", "sign_count",
                          "backup_eligible", "backed_up", "transports", "aaguid"}]}
          delete USER     what account deletion does: revokes every stored provider token at its provider,
                          ends every session of the user, then deletes the user, its identities and tokens
          passkeys delete USER ID
                          deletes the user's passkey ID (as show prints it); the last passkey of a provider
                          takes its identity and that identity's sessions with it; refused when it is the
                          user's last way to sign in (delete the user instead)
          --config FILE   the configuration whose store (store.kind sqlite or postgres, store.redis_url)
                          to use (default: providers.yaml); server.secret must be the servers' own
          USER            a user id, or PROVIDER:SUBJECT for the user that identity is linked to

        Exit codes: 0 done, 1 no such user or the configuration or store refused (reason on stderr),
        2 usage error. Tokens are never printed; a control, line separator or bidirectional control
        character in a stored value is printed escaped, \\u{1B} in text and \\u001b in JSON.
        """

    enum Verb: String, Sendable {
        case list, show, delete, passkeys
    }

    var verb: Verb
    var user: String?
    /// The passkey id of `passkeys delete`.
    var passkey: String? = nil
    var json: Bool
    var path: String

    static func parse(_ arguments: [String]) throws(ValidationError) -> UsersCommand? {
        if arguments.first == "--help" || arguments.first == "-h" { return nil }
        guard let first = arguments.first, let verb = Verb(rawValue: first) else {
            throw ValidationError(
                "command", expected: "'authflow users list', 'users show USER' or 'users delete USER'",
                found: arguments.first.map { "the unknown users command \(ValidationError.quoted($0))" } ?? "none")
        }
        if verb == .passkeys { return try parsePasskeys(Array(arguments.dropFirst())) }
        let parsed = try CommandIO.parse(
            Array(arguments.dropFirst()), options: ["config"], flags: verb == .list ? ["json"] : [])
        if parsed.help { return nil }
        let path = parsed.last("config") ?? "providers.yaml"
        if verb == .list {
            try parsed.requireNoPositional()
            return UsersCommand(verb: verb, user: nil, json: parsed.flags.contains("json"), path: path)
        }
        guard parsed.positional.count == 1, let user = parsed.positional.first else {
            throw ValidationError(
                "USER", expected: "one user id or PROVIDER:SUBJECT",
                found: parsed.positional.isEmpty ? "none" : "\(parsed.positional.count) arguments")
        }
        return UsersCommand(verb: verb, user: user, json: false, path: path)
    }

    /// `passkeys delete USER ID [--config FILE]`.
    static func parsePasskeys(_ arguments: [String]) throws(ValidationError) -> UsersCommand? {
        guard arguments.first == "delete" else {
            throw ValidationError(
                "command", expected: "'authflow users passkeys delete USER ID'",
                found: arguments.first.map { "users passkeys \(ValidationError.quoted($0))" } ?? "none")
        }
        let parsed = try CommandIO.parse(Array(arguments.dropFirst()), options: ["config"], flags: [])
        if parsed.help { return nil }
        guard parsed.positional.count == 2, !parsed.positional[1].isEmpty else {
            throw ValidationError(
                "USER ID", expected: "a user and one of its passkey ids",
                found: "\(parsed.positional.count) arguments")
        }
        return UsersCommand(
            verb: .passkeys, user: parsed.positional[0], passkey: parsed.positional[1], json: false,
            path: parsed.last("config") ?? "providers.yaml")
    }

    func validate() throws(ValidationError) {
        try CommandIO.requireNonEmpty(path, option: "config", expected: "a FILE")
        if let user {
            try Self.validateUser(user)
        }
    }

    /// Refuses an empty USER, or an identity with an empty provider or subject.
    static func validateUser(_ user: String) throws(ValidationError) {
        let parts = user.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard !user.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
            throw ValidationError(
                "USER", expected: "a user id, or PROVIDER:SUBJECT with both parts",
                found: user.isEmpty ? "an empty value" : ValidationError.quoted(user))
        }
    }

    func run() async -> ExitCode {
        let command = "users \(verb.rawValue)"
        do throws(AdminStores.Failure) {
            let admin = try AdminStores.open(path: path)
            defer { admin.close() }
            switch verb {
            case .list: return try await list(admin)
            case .show:
                let account = try await admin.user(user ?? "")
                CommandIO.out(TerminalText.json(try await admin.json(account)))
                return .success
            case .delete: return try await delete(admin)
            case .passkeys:
                let account = try await admin.user(user ?? "")
                let deleted = try await admin.deletePasskey(passkey ?? "", of: account.id)
                admin.recordAdminAction("passkeys.delete", user: account.id)
                CommandIO.out(
                    "deleted passkey \(TerminalText.escaped(passkey ?? "")) (\(TerminalText.escaped(deleted.name))) of user "
                        + TerminalText.escaped(account.id.rawValue))
                return .success
            }
        } catch {
            return error.report(command)
        }
    }

    /// How many users one store read returns.
    static let pageSize = 500

    private func list(_ admin: AdminStores) async throws(AdminStores.Failure) -> ExitCode {
        var listed: [JSONValue] = []
        var cursor: UserID?
        let store = admin.stores.accounts
        while true {
            let page: [UserAccount]
            do throws(StoreError) {
                page = try await store.users(after: cursor, limit: Self.pageSize)
            } catch {
                throw AdminStores.Failure(description: "store: \(error)")
            }
            guard let last = page.last else { break }
            if json {
                for account in page { listed.append(try await admin.json(account)) }
            } else {
                for account in page { CommandIO.out(Self.line(account)) }
            }
            cursor = last.id
        }
        if json {
            CommandIO.out(TerminalText.json(.object(["users": .array(listed)])))
        }
        return .success
    }

    /// `ID  CREATED  PROVIDER:SUBJECT[ (disabled)], ...`, the stored values escaped (``TerminalText/escaped(_:)``).
    static func line(_ account: UserAccount) -> String {
        let identities = account.identities.map { identity in
            TerminalText.escaped(identity.key.description) + (identity.isDisabled ? " (disabled)" : "")
        }
        return "\(TerminalText.escaped(account.id.rawValue))  \(AdminStores.timestamp(account.createdAt))  "
            + identities.joined(separator: ", ")
    }

    private func delete(_ admin: AdminStores) async throws(AdminStores.Failure) -> ExitCode {
        let account = try await admin.user(user ?? "")
        // The server's own deletion, so that revocation and the order of the steps are the route's.
        let providers: [ResolvedProvider]
        do throws(ConfigurationError) {
            providers = try await ConfigurationResolution.resolve(admin.configuration)
        } catch {
            throw AdminStores.Failure(description: error.issues.map(\.description).joined(separator: "\n"))
        }
        let server = SignInServer(
            options: admin.options, providers: providers, stores: admin.stores, httpClient: CurlHTTPClient(),
            logger: StandardErrorLogger(minimumLevel: .warning))
        let deletion: SignInServer.AccountDeletion
        do throws(ServerError) {
            deletion = try await server.deleteUser(account.id)
        } catch {
            throw AdminStores.Failure(description: "\(error.code): \(error.message)")
        }
        for provider in deletion.unrevokedProviders {
            CommandIO.err(
                "authflow users delete: note: a token of provider \(ValidationError.quoted(provider)) was not "
                    + "revoked (see the warning above); the user was deleted")
        }
        admin.recordAdminAction(
            "users.delete", user: account.id,
            details: [
                "identities": .integer(Int64(deletion.identities.count)),
                "sessions": .integer(Int64(deletion.endedSessions)),
            ])
        let identities = deletion.identities.count == 1 ? "1 identity" : "\(deletion.identities.count) identities"
        let sessions = deletion.endedSessions == 1 ? "1 session" : "\(deletion.endedSessions) sessions"
        CommandIO.out("deleted user \(TerminalText.escaped(account.id.rawValue)): \(identities), \(sessions) ended")
        return .success
    }
}
