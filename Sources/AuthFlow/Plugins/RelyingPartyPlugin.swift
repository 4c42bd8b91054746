/// A built-in plugin whose provider is a WebAuthn relying party (passkeys): the server builds its ceremonies from
/// the relying party the plugin was configured with. Asked for with `as?`.
package protocol RelyingPartyPlugin: ProviderPlugin {
    /// The relying party as configured, defaults applied; `nil` when `rp_id` or `origins` is neither written nor
    /// derivable from `server.public_url` (resolution refuses the provider then).
    var relyingParty: PasskeyRelyingPartySettings? { get }
}

/// A passkey provider's relying party as configured, defaults applied.
package struct PasskeyRelyingPartySettings: Sendable, Hashable {
    /// Whether a user must be verified (PIN, biometrics) by the authenticator (`user_verification`).
    package enum UserVerification: String, Sendable, Hashable, CaseIterable {
        case required, preferred
    }

    /// Which attestation the relying party asks for (`attestation`).
    package enum Attestation: String, Sendable, Hashable, CaseIterable {
        case none, direct
    }

    package var rpID: String
    package var rpName: String
    package var origins: [String]
    package var userVerification: UserVerification
    package var attestation: Attestation

    package init(
        rpID: String, rpName: String, origins: [String], userVerification: UserVerification, attestation: Attestation
    ) {
        self.rpID = rpID
        self.rpName = rpName
        self.origins = origins
        self.userVerification = userVerification
        self.attestation = attestation
    }
}

extension ResolvedProvider {
    /// The relying party of a passkey provider (``RelyingPartyPlugin``); `nil` for any other provider.
    package var passkeyRelyingParty: PasskeyRelyingPartySettings? {
        (plugin as? any RelyingPartyPlugin)?.relyingParty
    }
}
