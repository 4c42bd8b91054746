import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowJSON
import AuthFlowWebAuthn
import Foundation

extension PasskeyRoutes {
    /// `POST {prefix}/{name}/register` `{"ceremony", "credential", "session"}`: verifies the new credential (WebAuthn
    /// Level 3 §7.1) and stores it for the ceremony's user (a new user for a sign-up), then starts a session.
    /// Every refusal leaves no user, credential or session behind. What changes is noted in `changes`.
    func register(_ request: HTTPServerRequest, provider name: String, changes: SessionChangeLog)
        async throws(ServerError) -> HTTPServerResponse
    {
        let relyingParty = try self.relyingParty(name)
        try await rateLimiter.check(request, kind: .callback)
        let body = try PasskeyRequestBody(request, provider: name)
        let (seal, passkeys) = try ready(name)
        let ceremony = try await spend(body, seal: seal, kind: .registration, provider: name)
        guard let user = ceremony.user else { throw body.refuse("expected a registration ceremony, found another") }
        if let userID = user.userID {
            guard try await currentSession(request)?.record.userID == userID else {
                throw ServerError(
                    .notSignedIn, "expected the session of the user the registration was started for, found none",
                    status: 401, provider: name)
            }
        } else if !options.signup {
            throw LoginRoutes.signupDisabled
        }
        let registered = try verified(name) { () throws(WebAuthnError) in
            try WebAuthnVerifier.verifyRegistration(
                RegistrationResponse.parse(try body.credentialJSON()), challenge: ceremony.challenge,
                relyingParty: relyingParty)
        }
        let identity = try await store(registered, for: user, provider: name, passkeys: passkeys, changes: changes)
        logger.log(.info, "passkey registered", metadata: ["provider": name])
        return try await signIn(
            identity, credentialID: registered.id, kind: try body.sessionKind(), request: request, changes: changes)
    }

    /// `POST {prefix}/{name}/authenticate` `{"ceremony", "credential", "session"}`: verifies the assertion (§7.2)
    /// against the credential the store has for it, records the new sign count and backup state, then starts a
    /// session. A refusal past the rate limit is written to the audit trail as `sign_in.refused`. The session's user
    /// is noted in `changes`.
    func authenticate(_ request: HTTPServerRequest, provider name: String, changes: SessionChangeLog)
        async throws(ServerError) -> HTTPServerResponse
    {
        let relyingParty = try self.relyingParty(name)
        try await rateLimiter.check(request, kind: .callback)
        do throws(ServerError) {
            return try await verifyAssertion(request, provider: name, relyingParty: relyingParty, changes: changes)
        } catch {
            audit(AuditEvent(.signInRefused, outcome: .failure, code: error.code.rawValue, provider: name))
            throw error
        }
    }

    private func verifyAssertion(
        _ request: HTTPServerRequest, provider name: String, relyingParty: WebAuthnRelyingParty,
        changes: SessionChangeLog
    ) async throws(ServerError) -> HTTPServerResponse {
        let body = try PasskeyRequestBody(request, provider: name)
        let (seal, passkeys) = try ready(name)
        let ceremony = try await spend(body, seal: seal, kind: .authentication, provider: name)
        let response = try verified(name) { () throws(WebAuthnError) in
            try AuthenticationResponse.parse(try body.credentialJSON())
        }
        let found = try await storing("read the passkey") { () async throws(StoreError) in
            try await passkeys.passkey(response.rawID)
        }
        guard let stored = found, stored.identity.provider == name,
            let handle = try? Base64URL.decode(stored.identity.subject)
        else {
            throw ServerError(
                .unknownCredential, "expected a passkey registered here, found an unknown credential id", status: 400,
                provider: name)
        }
        let assertion = try verified(name) { () throws(WebAuthnError) in
            try WebAuthnVerifier.verifyAuthentication(
                response, challenge: ceremony.challenge, relyingParty: relyingParty,
                credential: StoredCredential(
                    id: stored.id, publicKey: stored.publicKey, signCount: stored.signCount,
                    backupEligible: stored.backupEligible, userHandle: handle))
        }
        let now = clock.now()
        try await storing("record the passkey's use") { () async throws(StoreError) in
            try await passkeys.recordPasskeyUse(
                stored.id, signCount: assertion.signCount, backedUp: assertion.backedUp, at: now)
        }
        let linked = try await storing("read the identity") { () async throws(StoreError) in
            try await stores.accounts.identity(stored.identity)
        }
        guard let identity = linked, !identity.isDisabled else {
            throw ServerError(
                .identityDisabled, "expected an identity that may sign in, found a disabled one", status: 403,
                provider: name)
        }
        return try await signIn(
            identity, credentialID: stored.id, kind: try body.sessionKind(), request: request, changes: changes)
    }

    /// Opens the body's ceremony and spends it in the spent-state set, so it is accepted once on any instance.
    private func spend(
        _ body: PasskeyRequestBody, seal: PasskeyCeremonySeal, kind: PasskeyCeremony.Kind, provider name: String
    ) async throws(ServerError) -> PasskeyCeremony {
        guard let sealed = try body.string("ceremony", limit: PasskeyCeremonySeal.maximumLength) else {
            throw body.refuse("expected a string 'ceremony' (from \(kind.optionsRoute)), found none")
        }
        let ceremony = try seal.open(sealed, kind: kind, provider: name, now: clock.now())
        let first: Bool
        do throws(FlowStoreError) {
            first = try await stores.flows.markSpent(state: ceremony.spentKey, until: ceremony.expiresAt)
        } catch {
            throw ServerError(
                .storeUnavailable, "expected the spent-state store to answer, found \(error.code.rawValue)",
                status: 503)
        }
        guard first else {
            throw ServerError(
                .ceremonyReused, "expected a ceremony used once, found one already used", status: 400, provider: name)
        }
        return ceremony
    }

    /// Runs a WebAuthn check, answering its refusal as 400 with its code.
    private func verified<T>(_ name: String, _ check: () throws(WebAuthnError) -> T) throws(ServerError) -> T {
        do throws(WebAuthnError) {
            return try check()
        } catch {
            if error.code.rawValue == "sign_count_not_increased" {
                logger.log(
                    .warning, "passkey sign count did not increase: possibly a cloned authenticator",
                    metadata: ["provider": name])
            }
            throw ServerError(.init(rawValue: error.code.rawValue), error.message, status: 400, provider: name)
        }
    }
}

extension ErrorCode where Domain == ServerError {
    /// 400: an assertion of a credential no user registered here.
    package static var unknownCredential: Self { Self(rawValue: "unknown_credential") }
    /// 409: a credential id registered before (to anyone).
    package static var credentialExists: Self { Self(rawValue: "credential_exists") }
    /// 404: no passkey of the signed-in user with that id.
    package static var credentialNotFound: Self { Self(rawValue: "credential_not_found") }
}
