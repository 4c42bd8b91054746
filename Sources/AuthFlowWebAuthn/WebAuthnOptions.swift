import AuthFlowJOSE
package import AuthFlowJSON

/// The options a browser or app passes to the platform's WebAuthn call, as the JSON forms of WebAuthn
/// Level 3 (§5.4 `PublicKeyCredentialCreationOptionsJSON`, §5.5 `PublicKeyCredentialRequestOptionsJSON`):
/// binary members in base64url, for `PublicKeyCredential.parseCreationOptionsFromJSON` and
/// `parseRequestOptionsFromJSON`.
package enum WebAuthnOptions {
    /// Creation options: a discoverable credential (`residentKey: required`) for `user`, the relying
    /// party's algorithms, user verification and attestation, and `exclude` (the user's credential ids)
    /// as `excludeCredentials`.
    package static func creation(
        relyingParty: WebAuthnRelyingParty, user: WebAuthnUser, challenge: [UInt8], exclude: [[UInt8]],
        timeout: Duration
    ) -> JSONValue {
        .object([
            "rp": ["id": .string(relyingParty.id), "name": .string(relyingParty.name)],
            "user": [
                "id": .string(Base64URL.encode(user.handle)), "name": .string(user.name),
                "displayName": .string(user.displayName),
            ],
            "challenge": .string(Base64URL.encode(challenge)),
            "pubKeyCredParams": .array(
                relyingParty.algorithms.map { ["type": "public-key", "alg": .integer(Int64($0.rawValue))] }),
            "timeout": .integer(milliseconds(timeout)),
            "excludeCredentials": .array(
                exclude.map { ["type": "public-key", "id": .string(Base64URL.encode($0))] }),
            "authenticatorSelection": [
                "residentKey": "required", "requireResidentKey": true,
                "userVerification": .string(relyingParty.userVerification.rawValue),
            ],
            "attestation": .string(relyingParty.attestation.rawValue),
        ])
    }

    /// Request options for a discoverable credential: an empty `allowCredentials`, so the browser's
    /// autofill (conditional mediation) can offer any passkey of the relying party.
    package static func request(relyingParty: WebAuthnRelyingParty, challenge: [UInt8], timeout: Duration)
        -> JSONValue
    {
        .object([
            "challenge": .string(Base64URL.encode(challenge)),
            "timeout": .integer(milliseconds(timeout)),
            "rpId": .string(relyingParty.id),
            "allowCredentials": [],
            "userVerification": .string(relyingParty.userVerification.rawValue),
        ])
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
