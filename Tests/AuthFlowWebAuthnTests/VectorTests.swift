import AuthFlowJOSE
import Testing

@testable import AuthFlowWebAuthn

/// Test data others made, through the parser and the verifier: the W3C WebAuthn Level 3 test vectors and
/// real authenticators' responses recorded by Yubico (Fixtures/README.md names the sources).
@Suite("Test vectors and real authenticators")
struct VectorTests {
    static func relyingParty(_ id: String, _ origin: String, attestation: WebAuthnRelyingParty.AttestationPreference)
        -> WebAuthnRelyingParty
    {
        // The vectors' authenticators set UV only sometimes: user verification is `preferred` here.
        WebAuthnRelyingParty(
            id: id, name: id, origins: [origin], userVerification: .preferred, attestation: attestation)
    }

    static func registration(id: [UInt8], clientData: [UInt8], attestationObject: [UInt8]) -> JSONValue {
        let encodedID = JSONValue.string(Base64URL.encode(id))
        return [
            "id": encodedID, "rawId": encodedID, "type": "public-key",
            "response": [
                "clientDataJSON": .string(Base64URL.encode(clientData)),
                "attestationObject": .string(Base64URL.encode(attestationObject)),
            ],
        ]
    }

    static func assertion(
        id: [UInt8], clientData: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]
    ) -> JSONValue {
        let encodedID = JSONValue.string(Base64URL.encode(id))
        return [
            "id": encodedID, "rawId": encodedID, "type": "public-key",
            "response": [
                "clientDataJSON": .string(Base64URL.encode(clientData)),
                "authenticatorData": .string(Base64URL.encode(authenticatorData)),
                "signature": .string(Base64URL.encode(signature)),
                "userHandle": .string(Base64URL.encode(userHandle)),
            ],
        ]
    }

    static func expectation(_ outcome: () throws -> Void) -> String {
        do {
            try outcome()
            return "ok"
        } catch let error as WebAuthnError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    @Test func w3cVectorsRegisterAndAuthenticate() throws {
        let document = try Fixtures.json("w3c-webauthn-l3-vectors.json")
        let rpID = try #require(document["rpId"]?.stringValue)
        let origin = try #require(document["origin"]?.stringValue)
        let vectors = try #require(document["vectors"]?.arrayValue)
        #expect(vectors.count == 9)
        let userHandle: [UInt8] = Array("vector-user".utf8)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            let registration = try #require(vector["registration"])
            func bytes(_ value: JSONValue?) -> [UInt8] { hex(value?.stringValue ?? "") }
            let expected = registration["expect"]?.stringValue ?? ""
            let json = Self.registration(
                id: bytes(registration["credentialId"]), clientData: bytes(registration["clientDataJSON"]),
                attestationObject: bytes(registration["attestationObject"]))
            var registered: RegisteredCredential?
            // `none` and packed self attestation verify under attestation `none`; full attestation
            // formats are refused there and stored unverified under `direct`.
            for preference in [WebAuthnRelyingParty.AttestationPreference.none, .direct] {
                let outcome = Self.expectation {
                    registered = try WebAuthnVerifier.verifyRegistration(
                        RegistrationResponse.parse(json), challenge: bytes(registration["challenge"]),
                        relyingParty: Self.relyingParty(rpID, origin, attestation: preference))
                }
                let wanted: String
                switch (expected, preference) {
                case ("verified", _), ("unverified", .direct): wanted = "ok"
                case ("unverified", .none): wanted = "attestation_not_allowed"
                default: wanted = expected
                }
                #expect(outcome == wanted, "\(name) registration under attestation \(preference)")
            }
            if let registered {
                #expect(registered.id == bytes(registration["credentialId"]), "\(name)")
                #expect(registered.attestationVerified == (expected == "verified"), "\(name)")
            }
            guard let authentication = vector["authentication"] else { continue }
            let publicKey = bytes(authentication["credentialPublicKey"])
            if let registered, expected != "cross_origin" { #expect(registered.publicKey == publicKey, "\(name)") }
            let assertionFlags = try AuthenticatorData.parse(bytes(authentication["authenticatorData"])).flags
            let stored = StoredCredential(
                id: bytes(registration["credentialId"]), publicKey: publicKey, signCount: 0,
                backupEligible: registered?.backupEligible ?? assertionFlags.contains(.backupEligible),
                userHandle: userHandle)
            let assertion = Self.assertion(
                id: stored.id, clientData: bytes(authentication["clientDataJSON"]),
                authenticatorData: bytes(authentication["authenticatorData"]),
                signature: bytes(authentication["signature"]),
                userHandle: userHandle)
            let outcome = Self.expectation {
                _ = try WebAuthnVerifier.verifyAuthentication(
                    AuthenticationResponse.parse(assertion), challenge: bytes(authentication["challenge"]),
                    relyingParty: Self.relyingParty(rpID, origin, attestation: .none), credential: stored)
            }
            let wanted =
                authentication["expect"]?.stringValue == "verified" ? "ok" : authentication["expect"]?.stringValue
            #expect(outcome == wanted, "\(name) authentication")
            // The same assertion with one signature bit flipped is refused.
            var signature = bytes(authentication["signature"])
            signature[signature.count / 2] ^= 0x10
            let tampered = Self.assertion(
                id: stored.id, clientData: bytes(authentication["clientDataJSON"]),
                authenticatorData: bytes(authentication["authenticatorData"]), signature: signature,
                userHandle: userHandle)
            if wanted == "ok" {
                #expect(
                    Self.expectation {
                        _ = try WebAuthnVerifier.verifyAuthentication(
                            AuthenticationResponse.parse(tampered), challenge: bytes(authentication["challenge"]),
                            relyingParty: Self.relyingParty(rpID, origin, attestation: .none), credential: stored)
                    } == "signature_invalid", "\(name) tampered")
            }
        }
    }

    @Test func yubicoRealExamplesRegisterAndAuthenticate() throws {
        let document = try Fixtures.json("yubico-real-examples.json")
        let examples = try #require(document["examples"]?.arrayValue)
        #expect(examples.count == 5)
        for example in examples {
            let name = example["name"]?.stringValue ?? "?"
            let relyingParty = Self.relyingParty(
                example["rpId"]?.stringValue ?? "", example["origin"]?.stringValue ?? "", attestation: .direct)
            let registration = try #require(example["registration"])
            let assertion = try #require(example["assertion"])
            func clientData(_ part: JSONValue) throws -> [UInt8] {
                if let text = part["clientData"]?.stringValue { return Array(text.utf8) }
                return try Fixtures.base64(part["clientDataBase64"]?.stringValue ?? "")
            }
            func challenge(_ bytes: [UInt8]) throws -> [UInt8] {
                try Base64URL.decode(JSONValue.parse(bytes)["challenge"]?.stringValue ?? "")
            }
            let registrationClientData = try clientData(registration)
            let object = try Fixtures.base64(registration["attestationObject"]?.stringValue ?? "")
            let credentialID = try Fixtures.base64(assertion["id"]?.stringValue ?? "")
            let registered = try WebAuthnVerifier.verifyRegistration(
                RegistrationResponse.parse(
                    Self.registration(id: credentialID, clientData: registrationClientData, attestationObject: object)),
                challenge: challenge(registrationClientData), relyingParty: relyingParty)
            #expect(registered.attestationFormat == registration["format"]?.stringValue, "\(name)")
            #expect(registered.attestationVerified == (registered.attestationFormat == "none"), "\(name)")
            // The recorded assertions carry no user handle; the store's user handle is supplied (it is not signed).
            let userHandle = try Fixtures.base64(example["userHandle"]?.stringValue ?? "")
            let stored = StoredCredential(
                id: registered.id, publicKey: registered.publicKey, signCount: registered.signCount,
                backupEligible: registered.backupEligible, userHandle: userHandle)
            let assertionClientData = try clientData(assertion)
            let verified = try WebAuthnVerifier.verifyAuthentication(
                AuthenticationResponse.parse(
                    Self.assertion(
                        id: credentialID, clientData: assertionClientData,
                        authenticatorData: Fixtures.base64(assertion["authenticatorData"]?.stringValue ?? ""),
                        signature: Fixtures.base64(assertion["signature"]?.stringValue ?? ""), userHandle: userHandle)),
                challenge: challenge(assertionClientData), relyingParty: relyingParty, credential: stored)
            #expect(verified.credentialID == registered.id, "\(name)")
            // Under attestation `none`, only the `none` example registers.
            var strict = relyingParty
            strict.attestation = .none
            let outcome = Self.expectation {
                _ = try WebAuthnVerifier.verifyRegistration(
                    RegistrationResponse.parse(
                        Self.registration(
                            id: credentialID, clientData: registrationClientData, attestationObject: object)),
                    challenge: challenge(registrationClientData), relyingParty: strict)
            }
            #expect(outcome == (registered.attestationFormat == "none" ? "ok" : "attestation_not_allowed"), "\(name)")
        }
    }
}
