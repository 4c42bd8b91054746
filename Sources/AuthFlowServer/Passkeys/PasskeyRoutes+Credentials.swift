import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowJSON
import Foundation

extension PasskeyRoutes {
    /// `GET {prefix}/{name}/credentials` (signed in): the user's passkeys of this provider, oldest first.
    func credentials(_ request: HTTPServerRequest, provider name: String) async throws(ServerError)
        -> HTTPServerResponse
    {
        _ = try relyingParty(name)
        let current = try await requireSession(request)
        let (_, passkeys) = try ready(name)
        let userID = current.record.userID
        let list = try await storing("read the passkeys") { () async throws(StoreError) in
            try await passkeys.passkeys(of: userID)
        }
        let items = list.filter { $0.identity.provider == name }.map(Self.json)
        return ResponseFactory.json(.object(["credentials": .array(items)]))
    }

    /// `POST {prefix}/{name}/credentials/rename` `{"id", "name"}` (signed in).
    func rename(_ request: HTTPServerRequest, provider name: String) async throws(ServerError)
        -> HTTPServerResponse
    {
        _ = try relyingParty(name)
        let current = try await requireSession(request)
        let body = try PasskeyRequestBody(request, provider: name)
        let (_, passkeys) = try ready(name)
        let id = try body.bytes("id")
        guard let newName = try body.string("name"), newName.count <= PasskeyCredential.maximumNameLength else {
            throw body.refuse("expected a string 'name' of 1 to \(PasskeyCredential.maximumNameLength) characters")
        }
        try await owned(id, of: current.record.userID, provider: name, passkeys: passkeys)
        try await changing(name) { () async throws(StoreError) in
            try await passkeys.renamePasskey(id, of: current.record.userID, to: newName)
        }
        return ResponseFactory.json(.object(["id": .string(Base64URL.encode(id)), "name": .string(newName)]))
    }

    /// `POST {prefix}/{name}/credentials/delete` `{"id"}` (signed in): refused `last_identity` (409) when it is the
    /// user's last way to sign in (delete the account instead). The last passkey of the provider takes its identity
    /// and the identity's sessions with it; the user and the identity are noted in `changes`.
    func delete(_ request: HTTPServerRequest, provider name: String, changes: SessionChangeLog)
        async throws(ServerError) -> HTTPServerResponse
    {
        _ = try relyingParty(name)
        let current = try await requireSession(request)
        let body = try PasskeyRequestBody(request, provider: name)
        let (_, passkeys) = try ready(name)
        let id = try body.bytes("id")
        let userID = current.record.userID
        try await owned(id, of: userID, provider: name, passkeys: passkeys)
        let deleted = try await changing(name) { () async throws(StoreError) in
            try await passkeys.deletePasskey(id, of: userID)
        }
        changes.noteChanged(user: userID)
        changes.noteChanged(identity: deleted.identity)
        let identityLeft = try await storing("read the identity") { () async throws(StoreError) in
            try await stores.accounts.identity(deleted.identity)
        }
        if identityLeft == nil {
            try await storing("delete the identity's sessions", store: "sessions") { () async throws(StoreError) in
                _ = try await stores.sessions.deleteSessions(identity: deleted.identity)
            }
        }
        return ResponseFactory.json(.object(["deleted": .string(Base64URL.encode(id))]))
    }

    /// Checks that `id` is one of `user`'s passkeys of provider `name`.
    ///
    /// - Throws: ``ServerError`` `credential_not_found` (404).
    private func owned(_ id: [UInt8], of user: UserID, provider name: String, passkeys: any PasskeyStore)
        async throws(ServerError)
    {
        let found = try await storing("read the passkey") { () async throws(StoreError) in
            try await passkeys.passkey(id)
        }
        guard let found, found.userID == user, found.identity.provider == name else {
            throw ServerError(
                .credentialNotFound, "expected one of your passkeys of this provider, found no passkey with that id",
                status: 404, provider: name)
        }
    }

    /// Runs a passkey change, answering the store's refusals: `last_identity` 409, `credential_not_found` 404.
    private func changing<T: Sendable>(_ name: String, _ operation: () async throws(StoreError) -> T)
        async throws(ServerError) -> T
    {
        do throws(StoreError) {
            return try await operation()
        } catch {
            switch error.code {
            case .lastIdentity:
                throw ServerError(
                    .lastIdentity,
                    "expected the account to keep a way to sign in, found this passkey is the last "
                        + "(delete the account instead)", status: 409, provider: name)
            case .credentialNotFound:
                throw ServerError(
                    .credentialNotFound, "expected one of your passkeys, found none with that id", status: 404,
                    provider: name)
            case .invalidValue:
                throw ServerError(.invalidRequest, error.message, status: 400, provider: name)
            default:
                throw ServerError(error, while: "change the passkey")
            }
        }
    }

    /// One credential as `GET credentials` lists it.
    static func json(_ credential: PasskeyCredential) -> JSONValue {
        .object([
            "id": .string(Base64URL.encode(credential.id)), "name": .string(credential.name),
            "created_at": .string(RequestParameters.timestamp(credential.createdAt)),
            "last_used_at": credential.lastUsedAt.map { .string(RequestParameters.timestamp($0)) } ?? .null,
            "backup_eligible": .bool(credential.backupEligible), "backed_up": .bool(credential.backedUp),
            "transports": .array(credential.transports.map(JSONValue.string)),
            "aaguid": .string(Self.uuid(credential.aaguid)),
        ])
    }

    /// 16 bytes in the UUID text form (`8-4-4-4-12` lowercase hex).
    static func uuid(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        guard hex.count == 16 else { return hex.joined() }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }
}
