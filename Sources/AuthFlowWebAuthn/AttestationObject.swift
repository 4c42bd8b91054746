import AuthFlowJOSE

/// The attestation object (WebAuthn Level 3 §6.5.4): a CBOR map of exactly `fmt` (text), `attStmt` (a
/// map) and `authData` (bytes).
struct AttestationObject: Sendable, Equatable {
    /// The attestation statement format.
    var format: String
    /// The attestation statement.
    var statement: CBORValue
    /// The raw authenticator data (what attestation signatures cover).
    var authenticatorDataBytes: [UInt8]
    /// The authenticator data, parsed.
    var authenticatorData: AuthenticatorData

    static let decoder = CBORDecoder(maximumBytes: WebAuthnLimits.attestationObject, maximumDepth: 8)

    /// Decodes and checks the shape.
    /// - Throws: `WebAuthnError` `.malformedCBOR`, `.malformedAttestation`, or as
    ///   ``AuthenticatorData/parse(_:)``.
    static func parse(_ bytes: [UInt8]) throws(WebAuthnError) -> Self {
        let value: CBORValue
        do {
            value = try decoder.decode(bytes)
        } catch {
            throw WebAuthnError(
                .malformedCBOR, "expected the attestation object in strict CBOR, found \(error.description)")
        }
        guard let entries = value.mapValue else {
            throw WebAuthnError(
                .malformedAttestation, "expected the attestation object to be a map, found \(value.kind)")
        }
        for entry in entries {
            guard let key = entry.key.textValue, ["fmt", "attStmt", "authData"].contains(key) else {
                throw WebAuthnError(
                    .malformedAttestation,
                    "expected only fmt, attStmt and authData in the attestation object, found another key")
            }
        }
        guard let format = value[text: "fmt"]?.textValue else {
            throw WebAuthnError(
                .malformedAttestation, "expected fmt to be a text string, found \(value[text: "fmt"]?.kind ?? "none")")
        }
        guard let statement = value[text: "attStmt"], statement.mapValue != nil else {
            throw WebAuthnError(
                .malformedAttestation, "expected attStmt to be a map, found \(value[text: "attStmt"]?.kind ?? "none")")
        }
        guard let authData = value[text: "authData"]?.bytesValue else {
            throw WebAuthnError(
                .malformedAttestation,
                "expected authData to be a byte string, found \(value[text: "authData"]?.kind ?? "none")")
        }
        return Self(
            format: format, statement: statement, authenticatorDataBytes: authData,
            authenticatorData: try AuthenticatorData.parse(authData))
    }
}

/// Verifying the attestation statement (WebAuthn Level 3 §7.1 steps 21 and 22, §8).
///
/// - `none`: `attStmt` must be empty; verified.
/// - `packed` without `x5c` (self attestation): `alg` must be the credential key's algorithm and `sig`
///   must verify over `authData ‖ clientDataHash` with the credential key; verified.
/// - `packed` with `x5c`, `tpm`, `android-key`, `android-safetynet`, `fido-u2f`, `apple`: not verified
///   here (no trust anchors are configured); accepted unverified when the relying party's attestation is
///   `direct`, refused (`attestation_not_allowed`) when it is `none`.
/// - any other format: refused (`attestation_invalid`).
enum AttestationStatement {
    static let unverifiedFormats: Set<String> = ["tpm", "android-key", "android-safetynet", "fido-u2f", "apple"]

    /// Whether the statement was verified (true) or accepted unverified (false).
    static func verify(
        _ object: AttestationObject, clientDataHash: [UInt8], credentialKey: COSEKey,
        preference: WebAuthnRelyingParty.AttestationPreference
    ) throws(WebAuthnError) -> Bool {
        switch object.format {
        case "none":
            guard object.statement.mapValue?.isEmpty == true else {
                throw WebAuthnError(.malformedAttestation, "expected an empty attStmt for fmt none, found members")
            }
            return true
        case "packed" where object.statement[text: "x5c"] == nil:
            try verifyPackedSelf(object, clientDataHash: clientDataHash, credentialKey: credentialKey)
            return true
        case "packed":
            try checkPackedShape(object.statement)
            return try unverified(object.format + " with x5c", preference: preference)
        case let format where unverifiedFormats.contains(format):
            return try unverified(format, preference: preference)
        default:
            throw WebAuthnError(
                .attestationInvalid,
                "expected fmt none, packed, tpm, android-key, android-safetynet, fido-u2f or apple, found \"\(CollectedClientData.printable(object.format))\""
            )
        }
    }

    private static func unverified(_ format: String, preference: WebAuthnRelyingParty.AttestationPreference)
        throws(WebAuthnError) -> Bool
    {
        guard preference == .direct else {
            throw WebAuthnError(
                .attestationNotAllowed,
                "expected attestation none or packed self attestation (attestation: none), found \(format)")
        }
        return false
    }

    /// `packed`: `alg` an integer, `sig` bytes, `x5c` (when present) a non-empty array of byte strings, and
    /// nothing else.
    private static func checkPackedShape(_ statement: CBORValue) throws(WebAuthnError) {
        for entry in statement.mapValue ?? [] {
            guard let key = entry.key.textValue, ["alg", "sig", "x5c"].contains(key) else {
                throw WebAuthnError(
                    .malformedAttestation, "expected only alg, sig and x5c in a packed attStmt, found another key")
            }
        }
        guard statement[text: "alg"]?.intValue != nil, statement[text: "sig"]?.bytesValue != nil else {
            throw WebAuthnError(
                .malformedAttestation, "expected an integer alg and a byte string sig in a packed attStmt")
        }
        if let chain = statement[text: "x5c"] {
            guard let certificates = chain.arrayValue, !certificates.isEmpty,
                certificates.allSatisfy({ $0.bytesValue != nil })
            else {
                throw WebAuthnError(.malformedAttestation, "expected x5c to be a non-empty array of byte strings")
            }
        }
    }

    private static func verifyPackedSelf(_ object: AttestationObject, clientDataHash: [UInt8], credentialKey: COSEKey)
        throws(WebAuthnError)
    {
        try checkPackedShape(object.statement)
        let algorithm = object.statement[text: "alg"]?.intValue ?? 0
        guard algorithm == credentialKey.algorithm.rawValue else {
            throw WebAuthnError(
                .attestationInvalid,
                "expected the self attestation's alg to be the credential key's \(credentialKey.algorithm.rawValue), found \(algorithm)"
            )
        }
        let signature = object.statement[text: "sig"]?.bytesValue ?? []
        guard credentialKey.verify(signature: signature, over: object.authenticatorDataBytes + clientDataHash) else {
            throw WebAuthnError(
                .attestationInvalid,
                "expected the self attestation signature to verify with the credential key, it does not")
        }
    }
}
