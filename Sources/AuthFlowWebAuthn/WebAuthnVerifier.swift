import AuthFlowJOSE

/// The relying party's checks of WebAuthn Level 3: §7.1 (registering a new credential) and §7.2
/// (verifying an authentication assertion), every step that does not need the store, in the order
/// docs/architecture.md gives ("The passkey verification order"). The caller's store checks that a
/// registered credential id is new, and finds the credential of an assertion's `rawId`.
package enum WebAuthnVerifier {
    /// §7.1: the client data (type `webauthn.create`, challenge, origin, `crossOrigin`), the attestation
    /// object, `rpIdHash`, UP, UV when required, BS only with BE, AT, the credential id (the response's
    /// and at most 1,023 bytes), the credential key (ES256, EdDSA or RS256, valid, and offered), and the
    /// attestation statement (see `AttestationStatement`).
    /// - Throws: `WebAuthnError` with the code of the first check that fails.
    package static func verifyRegistration(
        _ response: RegistrationResponse, challenge: [UInt8], relyingParty: WebAuthnRelyingParty
    ) throws(WebAuthnError) -> RegisteredCredential {
        let clientData = try CollectedClientData.parse(response.clientDataJSON)
        try clientData.check(type: "webauthn.create", challenge: challenge, relyingParty: relyingParty)
        let clientDataHash = Digest.sha256(response.clientDataJSON)
        let object = try AttestationObject.parse(response.attestationObject)
        let authData = object.authenticatorData
        try checkFlags(authData, relyingParty: relyingParty)
        guard let attested = authData.attestedCredential else {
            throw WebAuthnError(
                .attestedCredentialMissing, "expected attested credential data (flag AT) at registration, found none")
        }
        guard attested.credentialID == response.rawID else {
            throw WebAuthnError(
                .credentialIDMismatch, "expected the authenticator data's credential id to be rawId, found another")
        }
        let key = try credentialKey(attested.publicKey)
        guard relyingParty.algorithms.contains(key.algorithm) else {
            throw WebAuthnError(
                .algorithmNotOffered,
                "expected a key of an offered algorithm (\(relyingParty.algorithms.map(\.name).joined(separator: ", "))), found \(key.algorithm.name)"
            )
        }
        let verified = try AttestationStatement.verify(
            object, clientDataHash: clientDataHash, credentialKey: key, preference: relyingParty.attestation)
        return RegisteredCredential(
            id: attested.credentialID, publicKey: attested.publicKeyBytes, algorithm: key.algorithm.rawValue,
            signCount: authData.signCount, backupEligible: authData.flags.contains(.backupEligible),
            backedUp: authData.flags.contains(.backedUp), userVerified: authData.flags.contains(.userVerified),
            aaguid: attested.aaguid, attestationFormat: object.format, attestationVerified: verified,
            transports: response.transports)
    }

    /// §7.2: the credential (`rawId` is the stored credential's, `userHandle` present and the credential's
    /// user's), the client data (type `webauthn.get`, challenge, origin, `crossOrigin`), `rpIdHash`, UP,
    /// UV when required, BS only with BE and BE as registered, the signature over
    /// `authenticatorData ‖ SHA-256(clientDataJSON)`, and the signature counter (refused when either
    /// count is not zero and the new one is not greater).
    /// - Throws: `WebAuthnError` with the code of the first check that fails.
    package static func verifyAuthentication(
        _ response: AuthenticationResponse, challenge: [UInt8], relyingParty: WebAuthnRelyingParty,
        credential: StoredCredential
    ) throws(WebAuthnError) -> VerifiedAssertion {
        guard response.rawID == credential.id else {
            throw WebAuthnError(.credentialIDMismatch, "expected rawId to be the stored credential's id, found another")
        }
        // The user is not identified before the ceremony (discoverable credentials), so the user handle
        // must be present (§7.2 step 6).
        guard let userHandle = response.userHandle else {
            throw WebAuthnError(
                .userHandleMismatch, "expected response.userHandle for a discoverable credential, found none")
        }
        guard ConstantTime.equals(userHandle, credential.userHandle) else {
            throw WebAuthnError(
                .userHandleMismatch, "expected response.userHandle to be the credential's user handle, found another")
        }
        let key: COSEKey
        do {
            key = try COSEKey(bytes: credential.publicKey)
        } catch {
            throw WebAuthnError(.unsupportedKey, "expected the stored credential key to load, found: \(error.message)")
        }
        let clientData = try CollectedClientData.parse(response.clientDataJSON)
        try clientData.check(type: "webauthn.get", challenge: challenge, relyingParty: relyingParty)
        let authData = try AuthenticatorData.parse(response.authenticatorData)
        try checkFlags(authData, relyingParty: relyingParty)
        guard authData.flags.contains(.backupEligible) == credential.backupEligible else {
            throw WebAuthnError(
                .backupStateInvalid,
                "expected flag BE \(credential.backupEligible) as at registration, found \(!credential.backupEligible)")
        }
        let message = response.authenticatorData + Digest.sha256(response.clientDataJSON)
        guard key.verify(signature: response.signature, over: message) else {
            throw WebAuthnError(
                .signatureInvalid, "expected the assertion signature to verify with the credential key, it does not")
        }
        let count = authData.signCount
        if count != 0 || credential.signCount != 0, count <= credential.signCount {
            throw WebAuthnError(
                .signCountNotIncreased,
                "expected a signature counter above \(credential.signCount), found \(count) (possible cloned authenticator)"
            )
        }
        return VerifiedAssertion(
            credentialID: credential.id, signCount: count, backedUp: authData.flags.contains(.backedUp),
            userVerified: authData.flags.contains(.userVerified))
    }

    /// `rpIdHash`, UP, UV when required, and BS only with BE (§7.1 steps 13 to 16, §7.2 steps 15 to 18).
    static func checkFlags(_ authData: AuthenticatorData, relyingParty: WebAuthnRelyingParty) throws(WebAuthnError) {
        guard ConstantTime.equals(authData.rpIDHash, Digest.sha256(Array(relyingParty.id.utf8))) else {
            throw WebAuthnError(
                .rpIDMismatch, "expected rpIdHash to be SHA-256 of \"\(relyingParty.id)\", found another hash")
        }
        guard authData.flags.contains(.userPresent) else {
            throw WebAuthnError(.userNotPresent, "expected flag UP set, found it clear")
        }
        if relyingParty.userVerification == .required, !authData.flags.contains(.userVerified) {
            throw WebAuthnError(.userNotVerified, "expected flag UV set (user_verification: required), found it clear")
        }
        if authData.flags.contains(.backedUp), !authData.flags.contains(.backupEligible) {
            throw WebAuthnError(.backupStateInvalid, "expected flag BS clear when BE is clear, found BS set")
        }
    }

    static func credentialKey(_ cbor: CBORValue) throws(WebAuthnError) -> COSEKey {
        do {
            return try COSEKey(cbor: cbor)
        } catch {
            throw WebAuthnError(
                .unsupportedKey,
                "expected an EC2 P-256 ES256, OKP Ed25519 EdDSA or RSA RS256 credential key, found: \(error.message)")
        }
    }
}
