package import AuthFlowJSON

/// The one error type of AuthFlowWebAuthn: a stable ``Code`` (the server answers it as JSON `error`) and a
/// message that says what was expected, what was found and where. Messages never contain a challenge, a
/// signature, a user handle or key material.
package struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    package typealias Code = ErrorCode<WebAuthnError>

    /// What went wrong, stable across releases.
    package let code: Code
    /// What was expected and what was found, and where.
    package let message: String

    /// Creates an error; keep `message` free of secrets.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    package var description: String { "\(code.rawValue): \(message)" }
}

extension ErrorCode where Domain == WebAuthnError {
    /// The credential JSON is not the RegistrationResponseJSON or AuthenticationResponseJSON shape: a
    /// missing or mistyped member, a field that is not strict base64url, `type` not `public-key`, or a
    /// field longer than its cap.
    package static var malformedCredential: Self { Self(rawValue: "malformed_credential") }
    /// `clientDataJSON` is not a JSON object with string `type`, `challenge` and `origin`.
    package static var malformedClientData: Self { Self(rawValue: "malformed_client_data") }
    /// Authenticator data is truncated, has bytes after its last part, or its parts are malformed.
    package static var malformedAuthenticatorData: Self { Self(rawValue: "malformed_authenticator_data") }
    /// The attestation object is CBOR but not `{fmt, attStmt, authData}` with the right types, or the
    /// attestation statement does not have its format's members.
    package static var malformedAttestation: Self { Self(rawValue: "malformed_attestation") }
    /// Bytes that must be strict CBOR are not (indefinite lengths, non-shortest integers, duplicate
    /// keys, tags, floats, truncation, too deep or too large).
    package static var malformedCBOR: Self { Self(rawValue: "malformed_cbor") }
    /// `clientDataJSON.type` is not the ceremony's (`webauthn.create` or `webauthn.get`).
    package static var wrongCeremonyType: Self { Self(rawValue: "wrong_ceremony_type") }
    /// `clientDataJSON.challenge` is not the ceremony's challenge.
    package static var challengeMismatch: Self { Self(rawValue: "challenge_mismatch") }
    /// `clientDataJSON.origin` is not exactly one of the relying party's origins.
    package static var originMismatch: Self { Self(rawValue: "origin_mismatch") }
    /// `clientDataJSON.crossOrigin` is `true`.
    package static var crossOrigin: Self { Self(rawValue: "cross_origin") }
    /// The authenticator data's `rpIdHash` is not SHA-256 of the relying party id.
    package static var rpIDMismatch: Self { Self(rawValue: "rp_id_mismatch") }
    /// The UP flag is not set.
    package static var userNotPresent: Self { Self(rawValue: "user_not_present") }
    /// The UV flag is not set although user verification is required.
    package static var userNotVerified: Self { Self(rawValue: "user_not_verified") }
    /// BS is set without BE, or BE differs from the credential's at registration.
    package static var backupStateInvalid: Self { Self(rawValue: "backup_state_invalid") }
    /// A registration's authenticator data has no attested credential data (AT not set).
    package static var attestedCredentialMissing: Self { Self(rawValue: "attested_credential_missing") }
    /// A credential id is longer than 1,023 bytes.
    package static var credentialIDTooLong: Self { Self(rawValue: "credential_id_too_long") }
    /// `id`, `rawId` and the credential id of the authenticator data (or the stored credential) differ.
    package static var credentialIDMismatch: Self { Self(rawValue: "credential_id_mismatch") }
    /// The credential public key is not EC2 P-256/ES256, OKP Ed25519/EdDSA or RSA/RS256, or is invalid.
    package static var unsupportedKey: Self { Self(rawValue: "unsupported_key") }
    /// The credential key's algorithm was not among the algorithms offered.
    package static var algorithmNotOffered: Self { Self(rawValue: "algorithm_not_offered") }
    /// An attestation format other than `none` and `packed` self attestation while the relying party's
    /// attestation preference is `none`.
    package static var attestationNotAllowed: Self { Self(rawValue: "attestation_not_allowed") }
    /// An attestation statement does not verify (packed self attestation with another algorithm or a bad
    /// signature), or its format is not a registered one.
    package static var attestationInvalid: Self { Self(rawValue: "attestation_invalid") }
    /// The assertion signature does not verify with the credential's public key.
    package static var signatureInvalid: Self { Self(rawValue: "signature_invalid") }
    /// The assertion's `userHandle` is missing or is not the credential's user handle.
    package static var userHandleMismatch: Self { Self(rawValue: "user_handle_mismatch") }
    /// A signature counter that is not zero did not increase (a possible cloned authenticator).
    package static var signCountNotIncreased: Self { Self(rawValue: "sign_count_not_increased") }
}
