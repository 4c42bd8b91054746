/// What a verified registration yields, for the store to keep.
package struct RegisteredCredential: Sendable, Equatable {
    /// The credential id (at most 1,023 bytes).
    package var id: [UInt8]
    /// The COSE_Key bytes as the authenticator sent them.
    package var publicKey: [UInt8]
    /// The key's COSE algorithm (-7, -8 or -257).
    package var algorithm: Int
    /// The signature counter at registration.
    package var signCount: UInt32
    /// BE: the credential may be backed up (synced).
    package var backupEligible: Bool
    /// BS: the credential is backed up now.
    package var backedUp: Bool
    /// UV was set.
    package var userVerified: Bool
    /// The authenticator's AAGUID (16 bytes; zero when anonymised).
    package var aaguid: [UInt8]
    /// The attestation format (`none`, `packed`, `tpm`, ...).
    package var attestationFormat: String
    /// True when the statement was checked as its format defines (`none`, `packed` self attestation);
    /// false for a format stored unverified under attestation `direct`.
    package var attestationVerified: Bool
    /// The transports the client reported.
    package var transports: [String]

    /// A credential record.
    package init(
        id: [UInt8], publicKey: [UInt8], algorithm: Int, signCount: UInt32, backupEligible: Bool, backedUp: Bool,
        userVerified: Bool, aaguid: [UInt8], attestationFormat: String, attestationVerified: Bool,
        transports: [String]
    ) {
        self.id = id
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.userVerified = userVerified
        self.aaguid = aaguid
        self.attestationFormat = attestationFormat
        self.attestationVerified = attestationVerified
        self.transports = transports
    }
}

/// What authentication needs from the store: the credential found for the assertion's `rawId`.
package struct StoredCredential: Sendable, Equatable {
    /// The credential id.
    package var id: [UInt8]
    /// The COSE_Key bytes stored at registration.
    package var publicKey: [UInt8]
    /// The last signature counter seen.
    package var signCount: UInt32
    /// BE as registered.
    package var backupEligible: Bool
    /// The user handle of the user the credential belongs to.
    package var userHandle: [UInt8]

    /// A stored credential.
    package init(id: [UInt8], publicKey: [UInt8], signCount: UInt32, backupEligible: Bool, userHandle: [UInt8]) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.userHandle = userHandle
    }
}

/// What a verified assertion yields, for the store to update.
package struct VerifiedAssertion: Sendable, Equatable {
    /// The credential id.
    package var credentialID: [UInt8]
    /// The new signature counter.
    package var signCount: UInt32
    /// BS now.
    package var backedUp: Bool
    /// UV was set.
    package var userVerified: Bool

    /// An assertion's outcome.
    package init(credentialID: [UInt8], signCount: UInt32, backedUp: Bool, userVerified: Bool) {
        self.credentialID = credentialID
        self.signCount = signCount
        self.backedUp = backedUp
        self.userVerified = userVerified
    }
}

extension StoredCredential {
    /// What authentication needs of a credential registration yielded, for the user with `userHandle`.
    package init(_ registered: RegisteredCredential, userHandle: [UInt8]) {
        self.init(
            id: registered.id, publicKey: registered.publicKey, signCount: registered.signCount,
            backupEligible: registered.backupEligible, userHandle: userHandle)
    }
}

extension RegisteredCredential {
    /// The AAGUID in the UUID text form (`8-4-4-4-12` lowercase hex) that authenticator metadata uses; the
    /// hex of the bytes when they are not 16.
    package var aaguidText: String {
        let hex = aaguid.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        guard hex.count == 16 else { return hex.joined() }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }
}
