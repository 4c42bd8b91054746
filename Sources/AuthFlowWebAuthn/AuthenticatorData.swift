package import AuthFlowJOSE

/// Authenticator data (WebAuthn Level 3 §6.1): `rpIdHash` (32 bytes), flags (1), `signCount` (4,
/// big-endian), then the attested credential data when AT is set and an extensions CBOR map when ED is
/// set, and nothing after them.
package struct AuthenticatorData: Sendable, Equatable {
    /// The flags byte.
    package struct Flags: OptionSet, Sendable, Hashable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: user present.
        package static let userPresent = Flags(rawValue: 0x01)
        /// UV: user verified.
        package static let userVerified = Flags(rawValue: 0x04)
        /// BE: backup eligible.
        package static let backupEligible = Flags(rawValue: 0x08)
        /// BS: backed up.
        package static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data included.
        package static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension data included.
        package static let extensionData = Flags(rawValue: 0x80)
    }

    /// SHA-256 of the RP ID the credential is scoped to.
    package var rpIDHash: [UInt8]
    /// The flags.
    package var flags: Flags
    /// The signature counter.
    package var signCount: UInt32
    /// The attested credential data, when AT is set.
    package var attestedCredential: AttestedCredentialData?
    /// The extension outputs (a CBOR map), when ED is set.
    package var extensions: CBORValue?

    /// The CBOR caps inside authenticator data: COSE keys and extension maps.
    static let decoder = CBORDecoder(maximumBytes: WebAuthnLimits.attestationObject, maximumDepth: 8)

    /// Parses authenticator data strictly.
    /// - Throws: `WebAuthnError` `.malformedAuthenticatorData` (truncated, bytes left over, a flag without
    ///   its data or data without its flag, extensions not a map), `.credentialIDTooLong`,
    ///   `.malformedCBOR` for a COSE key or extension map that is not strict CBOR.
    package static func parse(_ bytes: [UInt8]) throws(WebAuthnError) -> Self {
        guard bytes.count >= 37 else {
            throw WebAuthnError(
                .malformedAuthenticatorData, "expected at least 37 bytes of authenticator data, found \(bytes.count)")
        }
        let flags = Flags(rawValue: bytes[32])
        let signCount = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var data = Self(
            rpIDHash: Array(bytes[0..<32]), flags: flags, signCount: signCount, attestedCredential: nil,
            extensions: nil)
        var position = 37
        if flags.contains(.attestedCredentialData) {
            data.attestedCredential = try AttestedCredentialData.parse(bytes, at: &position)
        }
        if flags.contains(.extensionData) {
            data.extensions = try parseExtensions(bytes, at: &position)
        }
        guard position == bytes.count else {
            throw WebAuthnError(
                .malformedAuthenticatorData,
                "expected authenticator data to end at byte \(position) (flags AT \(flags.contains(.attestedCredentialData)), ED \(flags.contains(.extensionData))), found \(bytes.count - position) more bytes"
            )
        }
        return data
    }

    private static func parseExtensions(_ bytes: [UInt8], at position: inout Int) throws(WebAuthnError) -> CBORValue {
        guard position < bytes.count else {
            throw WebAuthnError(
                .malformedAuthenticatorData, "expected extension data after byte \(position) (ED set), found none")
        }
        let (value, end) = try decodeCBOR(bytes, at: position, "the extensions")
        guard value.mapValue != nil else {
            throw WebAuthnError(
                .malformedAuthenticatorData, "expected the extensions to be a CBOR map, found \(value.kind)")
        }
        position = end
        return value
    }

    static func decodeCBOR(_ bytes: [UInt8], at position: Int, _ what: String) throws(WebAuthnError) -> (
        CBORValue, Int
    ) {
        do {
            return try decoder.decodeItem(in: bytes, at: position)
        } catch {
            throw WebAuthnError(
                .malformedCBOR,
                "expected \(what) in strict CBOR at byte \(position) of the authenticator data, found \(error.description)"
            )
        }
    }
}

/// Attested credential data (WebAuthn Level 3 §6.5.2): AAGUID (16 bytes), the credential id's length (2,
/// big-endian, at most 1,023), the credential id, and the credential public key as a COSE_Key.
package struct AttestedCredentialData: Sendable, Equatable {
    /// The authenticator's AAGUID.
    package var aaguid: [UInt8]
    /// The credential id.
    package var credentialID: [UInt8]
    /// The COSE_Key bytes, exactly as encoded.
    package var publicKeyBytes: [UInt8]
    /// The COSE_Key, decoded.
    package var publicKey: CBORValue

    static func parse(_ bytes: [UInt8], at position: inout Int) throws(WebAuthnError) -> Self {
        guard bytes.count - position >= 18 else {
            throw WebAuthnError(
                .malformedAuthenticatorData,
                "expected an AAGUID and a credential id length at byte \(position) (AT set), found \(bytes.count - position) bytes"
            )
        }
        let aaguid = Array(bytes[position..<(position + 16)])
        let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
        position += 18
        guard length <= WebAuthnLimits.credentialID else {
            throw WebAuthnError(
                .credentialIDTooLong, "expected a credential id of at most 1023 bytes, found \(length) bytes")
        }
        guard length > 0, bytes.count - position >= length else {
            throw WebAuthnError(
                .malformedAuthenticatorData,
                "expected a credential id of \(length) bytes at byte \(position), found \(bytes.count - position) bytes left"
            )
        }
        let credentialID = Array(bytes[position..<(position + length)])
        position += length
        let keyStart = position
        let (key, end) = try AuthenticatorData.decodeCBOR(bytes, at: position, "the credential public key")
        position = end
        return Self(
            aaguid: aaguid, credentialID: credentialID, publicKeyBytes: Array(bytes[keyStart..<end]), publicKey: key)
    }
}
