import AuthFlow
import AuthFlowDeployment
import AuthFlowJOSE
import Foundation

/// The configured stores, opened for the administration commands (`users`, `sessions`) exactly as
/// `authflow serve` opens them, so they act on what a running server sees.
struct AdminStores {
    let configuration: Configuration
    let options: SignInServer.Options
    let stores: SignInServer.Stores

    /// A failure to report on standard error (exit 1): a configuration problem, a store that cannot be
    /// opened or answered, or a user that is not there.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Loads `path` and opens its stores. A memory store is refused: it lives inside one server process.
    static func open(path: String) throws(Failure) -> AdminStores {
        let configuration: Configuration
        var options: SignInServer.Options
        do throws(ConfigurationError) {
            configuration = try ConfigurationLoader(environment: ProcessInfo.processInfo.environment).load(path: path)
            options = try SignInServer.Options(configuration: configuration)
        } catch {
            throw Failure(description: error.issues.map(\.description).joined(separator: "\n"))
        }
        guard configuration.store.kind != .memory else {
            throw Failure(
                description:
                    "store.kind: expected sqlite or postgres (the stores a server shares with this command), found "
                    + "memory, which lives only inside one authflow serve process")
        }
        do {
            options.audit = try configuration.server?.auditLog.map { destination throws(AuditTrailError) in
                try AuditTrail(destination: destination)
            }
        } catch {
            throw Failure(description: error.description)
        }
        do {
            let stores = try SignInServer.Stores.open(
                configuration.store, secret: options.secret, previousSecrets: options.previousSecrets,
                clock: SystemClock(), random: SystemRandom())
            return AdminStores(configuration: configuration, options: options, stores: stores)
        } catch {
            options.audit?.close()
            throw Failure(description: "cannot open the store: \(error)")
        }
    }

    /// Records the administrator's `action` (`users.delete`, `sessions.revoke`, `passkeys.delete`) on `user` in the
    /// audit trail (`server.audit_log`), when one is configured.
    func recordAdminAction(_ action: String, user: UserID, details: [String: JSONValue] = [:]) {
        var details = details
        details["action"] = .string(action)
        options.audit?.record(AuditEvent(.adminAction, userID: user, actor: .admin, details: details))
    }

    /// Writes what the audit trail holds and closes it; the command's last step.
    func close() { options.audit?.close() }

    /// The user `argument` names: a user id, or `PROVIDER:SUBJECT` for the user that identity belongs to
    /// (generated user ids never hold a colon; a subject may, so only the first colon splits).
    func user(_ argument: String) async throws(Failure) -> UserAccount {
        let accounts = stores.accounts
        let found: UserAccount?
        var key: IdentityKey?
        do throws(StoreError) {
            if let colon = argument.firstIndex(of: ":") {
                let identityKey = IdentityKey(
                    provider: String(argument[..<colon]), subject: String(argument[argument.index(after: colon)...]))
                key = identityKey
                if let identity = try await accounts.identity(identityKey) {
                    found = try await accounts.user(identity.userID)
                } else {
                    found = nil
                }
            } else {
                found = try await accounts.user(UserID(rawValue: argument))
            }
        } catch {
            throw Failure(description: "store: \(error)")
        }
        guard let found else {
            throw Failure(
                description: key.map {
                    "user_not_found: expected an identity linked to a user, found none for provider "
                        + "\(ValidationError.quoted($0.provider)) and that subject"
                } ?? "user_not_found: expected a user with id \(ValidationError.quoted(argument)), found none")
        }
        return found
    }

    /// The user as JSON: id, creation time and identities (profile fields only; never tokens).
    static func json(_ account: UserAccount) -> JSONValue {
        .object([
            "id": .string(account.id.rawValue),
            "created_at": .string(timestamp(account.createdAt)),
            "identities": .array(
                account.identities.map { identity in
                    .object([
                        "provider": .string(identity.provider),
                        "subject": .string(identity.subject),
                        "email": identity.email.map(JSONValue.string) ?? .null,
                        "email_verified": .bool(identity.emailVerified),
                        "name": identity.name.map(JSONValue.string) ?? .null,
                        "disabled": .bool(identity.isDisabled),
                        "created_at": .string(timestamp(identity.createdAt)),
                        "updated_at": .string(timestamp(identity.updatedAt)),
                    ])
                }),
        ])
    }

    /// RFC 3339 in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}

extension AdminStores.Failure {
    /// Prints the failure for `command` on standard error; ``ExitCode/invalid``.
    func report(_ command: String) -> ExitCode {
        CommandIO.err("authflow \(command): \(description)")
        return .invalid
    }
}
