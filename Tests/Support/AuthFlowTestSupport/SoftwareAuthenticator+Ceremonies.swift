package import AuthFlowJOSE
import Synchronization

extension SoftwareAuthenticator {
    /// Answers creation options (`PublicKeyCredentialCreationOptionsJSON`, or a body holding it as
    /// `publicKey`) as a browser on `origin` would: a new discoverable credential, as
    /// RegistrationResponseJSON.
    /// - Throws: ``Refusal`` when the options are unusable, no offered algorithm is supported, or a
    ///   credential of this authenticator is excluded.
    package func register(options body: JSONValue, origin: String, knobs: Knobs = Knobs()) throws(Refusal)
        -> JSONValue
    {
        let options = body["publicKey"] ?? body
        let rpID = options["rp"]?["id"]?.stringValue ?? Self.host(of: origin)
        let userHandle = try Self.binary(options["user"]?["id"], "user.id")
        let challenge = try Self.binary(options["challenge"], "challenge", replacedBy: knobs.challenge)
        let algorithm = try chooseAlgorithm(options, knobs: knobs)
        let excluded = (options["excludeCredentials"]?.arrayValue ?? []).compactMap {
            $0["id"]?.stringValue.flatMap { try? Base64URL.decode($0) }
        }
        if credentials.contains(where: { $0.rpID == rpID && excluded.contains($0.id) }) {
            throw Refusal(description: "InvalidStateError: a credential of this authenticator is excluded")
        }
        let key = try Self.generateKey(algorithm)
        let credentialID = SystemRandom().bytes(knobs.credentialIDLength)
        let publicKey: [UInt8]
        do {
            publicKey = try COSEKey.cbor(for: key.publicKey, algorithm: algorithm).encoded()
        } catch {
            throw Refusal(description: "the COSE key cannot be made: \(error)")
        }
        let signCount = knobs.signCount ?? 0
        var authData = Self.authenticatorData(
            rpID: knobs.rpIDForHash ?? rpID, knobs: knobs, signCount: signCount, attested: knobs.attestedCredentialData)
        if knobs.attestedCredentialData {
            authData += aaguid + [UInt8(credentialID.count >> 8 & 0xFF), UInt8(credentialID.count & 0xFF)]
            authData += credentialID + publicKey
        }
        authData = knobs.authenticatorData?(authData) ?? authData
        let clientData = Self.clientDataJSON(
            type: "webauthn.create", challenge: challenge, origin: origin, knobs: knobs)
        let (format, statement) = try Self.attestation(
            knobs.attestation, key: key, algorithm: algorithm, signed: authData + Digest.sha256(clientData))
        let object = CBORValue.map([
            CBORMapEntry(.text("fmt"), .text(format)), CBORMapEntry(.text("attStmt"), statement),
            CBORMapEntry(.text("authData"), .bytes(authData)),
        ]).encoded()
        let credential = Credential(
            id: credentialID, rpID: rpID, userHandle: userHandle, key: key, algorithm: algorithm, signCount: signCount)
        state.withLock { $0.append(credential) }
        return [
            "id": .string(Base64URL.encode(credentialID)), "rawId": .string(Base64URL.encode(credentialID)),
            "type": "public-key", "authenticatorAttachment": "platform", "clientExtensionResults": [:],
            "response": [
                "clientDataJSON": .string(Base64URL.encode(clientData)),
                "attestationObject": .string(Base64URL.encode(knobs.attestationObject?(object) ?? object)),
                "transports": ["internal", "hybrid"],
            ],
        ]
    }

    /// Answers request options (`PublicKeyCredentialRequestOptionsJSON`, or a body holding it as
    /// `publicKey`) with an assertion of `credentialID`, or else of the newest credential for the RP ID
    /// that `allowCredentials` allows, as AuthenticationResponseJSON. The counter grows by
    /// `knobs.signCountStep` (unless `knobs.signCount` sets it).
    /// - Throws: ``Refusal`` when no credential fits.
    package func authenticate(
        options body: JSONValue, origin: String, credentialID: [UInt8]? = nil, knobs: Knobs = Knobs()
    ) throws(Refusal) -> JSONValue {
        let options = body["publicKey"] ?? body
        let rpID = options["rpId"]?.stringValue ?? Self.host(of: origin)
        let challenge = try Self.binary(options["challenge"], "challenge", replacedBy: knobs.challenge)
        let allowed = (options["allowCredentials"]?.arrayValue ?? []).compactMap {
            $0["id"]?.stringValue.flatMap { try? Base64URL.decode($0) }
        }
        let chosen = state.withLock { credentials -> Credential? in
            guard
                let index = credentials.lastIndex(where: {
                    $0.rpID == rpID && (allowed.isEmpty || allowed.contains($0.id))
                        && (credentialID == nil || credentialID == $0.id)
                })
            else { return nil }
            let next = knobs.signCount ?? credentials[index].signCount &+ knobs.signCountStep
            credentials[index].signCount = next
            return credentials[index]
        }
        guard let credential = chosen else {
            throw Refusal(description: "NotAllowedError: no credential of this authenticator fits the options")
        }
        var authData = Self.authenticatorData(
            rpID: knobs.rpIDForHash ?? rpID, knobs: knobs, signCount: credential.signCount)
        authData = knobs.authenticatorData?(authData) ?? authData
        let clientData = Self.clientDataJSON(type: "webauthn.get", challenge: challenge, origin: origin, knobs: knobs)
        var signature: [UInt8]
        do {
            signature = try credential.key.webAuthnSignature(
                over: authData + Digest.sha256(clientData), algorithm: credential.algorithm)
        } catch {
            throw Refusal(description: "signing failed: \(error)")
        }
        if knobs.corruptSignature { signature[signature.count / 2] ^= 0x01 }
        var response: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientData)),
            "authenticatorData": .string(Base64URL.encode(authData)),
            "signature": .string(Base64URL.encode(signature)),
        ]
        if let handle = knobs.userHandle ?? credential.userHandle {
            response["userHandle"] = .string(Base64URL.encode(handle))
        }
        return [
            "id": .string(Base64URL.encode(credential.id)), "rawId": .string(Base64URL.encode(credential.id)),
            "type": "public-key", "authenticatorAttachment": "platform", "clientExtensionResults": [:],
            "response": .object(response),
        ]
    }
}
