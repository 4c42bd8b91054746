package import AuthFlowJOSE

/// What a relying party asks of and accepts from authenticators: its id, name, exact origins, user
/// verification, attestation and algorithms.
package struct WebAuthnRelyingParty: Sendable, Equatable {
    /// Whether the UV flag is required.
    package enum UserVerification: String, Sendable, Equatable {
        /// The UV flag must be set (the default).
        case required
        /// Asked for, not required.
        case preferred
    }

    /// Which attestation the relying party accepts.
    package enum AttestationPreference: String, Sendable, Equatable {
        /// `none` and `packed` self attestation only; any other format is refused
        /// (`attestation_not_allowed`). The default.
        case none
        /// Also any other registered format, stored unverified (`attestationVerified` false).
        case direct
    }

    /// The RP ID (a registrable domain suffix of the origins' hosts).
    package var id: String
    /// The name shown by authenticators.
    package var name: String
    /// The origins accepted, compared exactly (`https://example.com`, `android:apk-key-hash:…`).
    package var origins: [String]
    /// Whether UV is required.
    package var userVerification: UserVerification
    /// The attestation accepted.
    package var attestation: AttestationPreference
    /// The algorithms offered in `pubKeyCredParams`, in order of preference.
    package var algorithms: [COSEAlgorithm]

    /// A relying party; by default UV required, attestation `none`, ES256, EdDSA and RS256.
    package init(
        id: String, name: String, origins: [String], userVerification: UserVerification = .required,
        attestation: AttestationPreference = .none, algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256]
    ) {
        self.id = id
        self.name = name
        self.origins = origins
        self.userVerification = userVerification
        self.attestation = attestation
        self.algorithms = algorithms
    }
}

/// The user a credential is created for: the user handle (1 to 64 random bytes, never personal data) and
/// the names an authenticator shows.
package struct WebAuthnUser: Sendable, Equatable {
    /// The user handle.
    package var handle: [UInt8]
    /// The account name (`user.name`).
    package var name: String
    /// The display name (`user.displayName`).
    package var displayName: String

    /// A user.
    package init(handle: [UInt8], name: String, displayName: String) {
        self.handle = handle
        self.name = name
        self.displayName = displayName
    }
}
