import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowJSON
import AuthFlowWebAuthn
import Foundation

extension PasskeyRoutes {
    /// Stores the verified credential: a new user with it (a sign-up) or the ceremony's user, its identity linked
    /// when new; returns the identity. The identity and its user are noted in `changes`.
    ///
    /// - Throws: ``ServerError`` `credential_exists` (409) for a credential id registered before, `account_exists`
    ///   (403) for a user handle another user has, `store_unavailable` (503).
    func store(
        _ registered: RegisteredCredential, for user: PasskeyCeremony.User, provider name: String,
        passkeys: any PasskeyStore, changes: SessionChangeLog
    ) async throws(ServerError) -> LinkedIdentity {
        let key = IdentityKey(provider: name, subject: Base64URL.encode(user.handle))
        let userID = user.userID ?? UserID.generate(using: random)
        let now = clock.now()
        let credential = PasskeyCredential(
            id: registered.id, identity: key, userID: userID, publicKey: registered.publicKey,
            algorithm: registered.algorithm, signCount: registered.signCount, backupEligible: registered.backupEligible,
            backedUp: registered.backedUp, aaguid: registered.aaguid, transports: registered.transports,
            attestationFormat: registered.attestationFormat, attestationVerified: registered.attestationVerified,
            name: "Passkey " + RequestParameters.timestamp(now).prefix(10), createdAt: now)
        let profile = IdentityProfile(name: user.displayName)
        changes.noteChanged(identity: key)
        changes.noteChanged(user: userID)
        do throws(StoreError) {
            if user.userID == nil {
                _ = try await passkeys.createUser(userID, profile: profile, passkey: credential)
            } else {
                try await passkeys.addPasskey(credential, profile: profile)
            }
            guard let identity = try await stores.accounts.identity(key) else {
                throw StoreError(.identityNotFound, "expected the identity just stored, found none")
            }
            return identity
        } catch {
            if error.code == .duplicateCredential {
                throw ServerError(
                    .credentialExists, "expected a credential id not registered before, found one that is",
                    status: 409, provider: name)
            }
            if error.code == .identityAlreadyLinked { throw ServerError(AccountRefusal.accountExists(provider: name)) }
            if error.code == .userNotFound {
                throw ServerError(.notSignedIn, "expected the signed-in user, found it deleted", status: 401)
            }
            throw ServerError(error, while: "store the passkey")
        }
    }

    /// Starts a session for `identity` and answers as `POST {prefix}/{p}/native` does for `bearer` (with
    /// `credential_id` added), or `{"user_id", "provider", "credential_id"}` with the session cookie for `cookie`.
    /// The user is noted in `changes`.
    func signIn(
        _ identity: LinkedIdentity, credentialID: [UInt8], kind: SessionKind, request: HTTPServerRequest,
        changes: SessionChangeLog
    ) async throws(ServerError) -> HTTPServerResponse {
        changes.noteChanged(user: identity.userID)
        let agent = UserAgentSummary.summary(request.headers["User-Agent"])
        let credential = JSONValue.string(Base64URL.encode(credentialID))
        if kind == .bearer {
            let session = try await sessions.issue(for: identity, kind: .bearer, providerSessionID: nil, agent: agent)
            var json = NativeRoutes.bearerJSON(token: session.id, record: session.record, identity: identity)
            if case .object(var members) = json {
                members["credential_id"] = credential
                json = .object(members)
            }
            logger.log(.info, "signed in", metadata: ["provider": identity.provider, "session": "bearer"])
            audit(.signedIn(identity.userID, provider: identity.provider, intent: "login", session: "bearer"))
            return ResponseFactory.json(json)
        }
        let (_, cookie) = try await createSession(for: identity, agent: agent)
        var response = ResponseFactory.json(
            .object([
                "user_id": .string(identity.userID.rawValue), "provider": .string(identity.provider),
                "credential_id": credential,
            ]))
        response.addCookie(cookie)
        logger.log(.info, "signed in", metadata: ["provider": identity.provider, "session": "cookie"])
        audit(.signedIn(identity.userID, provider: identity.provider, intent: "login", session: "cookie"))
        return response
    }
}

extension PasskeyRequestBody {
    /// The `credential` member.
    ///
    /// - Throws: ``WebAuthnError`` `malformed_credential` when it is not an object.
    func credentialJSON() throws(WebAuthnError) -> JSONValue {
        guard let value = object["credential"], value.objectValue != nil else {
            throw WebAuthnError(
                .malformedCredential, "expected an object 'credential' (the PublicKeyCredential's toJSON()), found none"
            )
        }
        return value
    }
}
