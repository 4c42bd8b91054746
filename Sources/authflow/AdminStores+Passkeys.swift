import AuthFlow
import AuthFlowDeployment
import AuthFlowJOSE
import Foundation

extension AdminStores {
    /// The user's passkeys (none when the account store keeps no passkeys).
    func passkeys(of user: UserID) async throws(Failure) -> [PasskeyCredential] {
        guard let store = stores.accounts as? any PasskeyStore else { return [] }
        do throws(StoreError) {
            return try await store.passkeys(of: user)
        } catch {
            throw Failure(description: "store: \(error)")
        }
    }

    /// The user as JSON (``json(_:)``) with its passkeys: `"passkeys": [{"id", "provider", "name", "created_at",
    /// "last_used_at", "sign_count", "backup_eligible", "backed_up", "transports", "aaguid"}]` (never a key).
    func json(_ account: UserAccount) async throws(Failure) -> JSONValue {
        guard case .object(var members) = Self.json(account) else { return Self.json(account) }
        members["passkeys"] = .array(try await passkeys(of: account.id).map(Self.json))
        return .object(members)
    }

    /// One passkey as `users show` prints it.
    static func json(_ credential: PasskeyCredential) -> JSONValue {
        .object([
            "id": .string(Base64URL.encode(credential.id)), "provider": .string(credential.identity.provider),
            "name": .string(credential.name), "created_at": .string(timestamp(credential.createdAt)),
            "last_used_at": credential.lastUsedAt.map { .string(timestamp($0)) } ?? .null,
            "sign_count": .integer(Int64(credential.signCount)), "backup_eligible": .bool(credential.backupEligible),
            "backed_up": .bool(credential.backedUp), "transports": .array(credential.transports.map(JSONValue.string)),
            "aaguid": .string(Hex.encode(credential.aaguid)),
        ])
    }

    /// Deletes the passkey `id` (base64url) of `user`, and the sessions of its identity when it was the last
    /// passkey of its provider.
    ///
    /// - Throws: ``Failure`` for an id that is not the user's (`credential_not_found`), the user's last way to sign
    ///   in (`last_identity`: delete the user instead), or a store failure.
    func deletePasskey(_ id: String, of user: UserID) async throws(Failure) -> PasskeyCredential {
        guard let store = stores.accounts as? any PasskeyStore else {
            throw Failure(description: "store: the account store keeps no passkeys")
        }
        guard let bytes = try? Base64URL.decode(id), !bytes.isEmpty else {
            throw Failure(description: "expected ID to be a passkey id (base64url, as users show prints it)")
        }
        do throws(StoreError) {
            let deleted = try await store.deletePasskey(bytes, of: user)
            if try await stores.accounts.identity(deleted.identity) == nil {
                _ = try await stores.sessions.deleteSessions(identity: deleted.identity)
            }
            return deleted
        } catch {
            throw Failure(description: "store: \(error)")
        }
    }
}
