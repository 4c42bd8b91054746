import AuthFlowJOSE
import AuthFlowTestSupport
import Testing

@testable import AuthFlowWebAuthn

/// WebAuthn Level 3 §7.1 against the software authenticator: each check accepts the correct response and
/// refuses the one broken thing with its code.
@Suite("Registration (§7.1)")
struct RegistrationTests {
    let ceremonies = Ceremonies()

    @Test(arguments: [COSEAlgorithm.es256, .edDSA, .rs256])
    func registersEachAlgorithmWithNoneAndPackedSelfAttestation(_ algorithm: COSEAlgorithm) throws {
        let ceremonies = Ceremonies(algorithms: [algorithm])
        let none = try ceremonies.register()
        #expect(none.algorithm == algorithm.rawValue)
        #expect(none.attestationFormat == "none" && none.attestationVerified)
        #expect(none.id.count == 32 && none.aaguid.count == 16 && none.signCount == 0)
        #expect(none.userVerified && !none.backupEligible && !none.backedUp)
        #expect(none.transports == ["internal", "hybrid"])
        #expect(try COSEKey(bytes: none.publicKey).algorithm == algorithm)
        let packed = try ceremonies.register(knobs: knobs { $0.attestation = .packedSelf })
        #expect(packed.attestationFormat == "packed" && packed.attestationVerified)
    }

    @Test func refusesTheClientDataChecks() {
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.type = "webauthn.get" }) } == .wrongCeremonyType)
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.challenge = [1, 2, 3] }) } == .challengeMismatch)
        for origin in [
            "https://evil.example", "https://example.com:443", "https://example.com/", "http://example.com",
            "https://sub.example.com", "HTTPS://EXAMPLE.COM",
        ] {
            #expect(refusal { _ = try ceremonies.register(origin: origin) } == .originMismatch, "\(origin)")
        }
        #expect(refusal { _ = try ceremonies.register(knobs: knobs { $0.crossOrigin = true }) } == .crossOrigin)
        #expect(refusal { _ = try ceremonies.register(knobs: knobs { $0.crossOrigin = nil }) } == nil)
        #expect(
            refusal {
                _ = try ceremonies.register(knobs: knobs { $0.clientDataJSON = { _ in Array("[]".utf8) } })
            } == .malformedClientData)
        #expect(
            refusal {
                _ = try ceremonies.register(knobs: knobs { $0.clientDataJSON = { Array($0.dropLast()) } })
            } == .malformedClientData)
    }

    @Test func refusesTheAuthenticatorDataChecks() {
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.rpIDForHash = "evil.example" }) } == .rpIDMismatch)
        #expect(refusal { _ = try ceremonies.register(knobs: knobs { $0.userPresent = false }) } == .userNotPresent)
        #expect(refusal { _ = try ceremonies.register(knobs: knobs { $0.userVerified = false }) } == .userNotVerified)
        #expect(refusal { _ = try ceremonies.register(knobs: knobs { $0.backedUp = true }) } == .backupStateInvalid)
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.attestedCredentialData = false }) }
                == .attestedCredentialMissing)
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.authenticatorData = { $0 + [0] } }) }
                == .malformedAuthenticatorData)
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.authenticatorData = { Array($0.prefix(36)) } }) }
                == .malformedAuthenticatorData)
    }

    @Test func acceptsWhatTheRelyingPartyAllows() throws {
        var preferred = ceremonies
        preferred.relyingParty.userVerification = .preferred
        #expect(try preferred.register(knobs: knobs { $0.userVerified = false }).userVerified == false)
        let synced = try ceremonies.register(
            knobs: knobs {
                $0.backupEligible = true
                $0.backedUp = true
            })
        #expect(synced.backupEligible && synced.backedUp)
    }

    @Test func refusesKeysNotOfferedOrNotSupported() throws {
        var onlyES256 = ceremonies
        onlyES256.relyingParty.algorithms = [.es256]
        #expect(
            refusal { _ = try onlyES256.register(knobs: knobs { $0.forceAlgorithm = .edDSA }) } == .algorithmNotOffered)
        // An ES384 key (alg -35, crv 2) in place of the credential key.
        let es384 = CBORValue.map([
            CBORMapEntry(CBORValue(1), CBORValue(2)), CBORMapEntry(CBORValue(3), CBORValue(-35)),
            CBORMapEntry(CBORValue(-1), CBORValue(2)),
            CBORMapEntry(CBORValue(-2), .bytes(Array(repeating: 1, count: 48))),
            CBORMapEntry(CBORValue(-3), .bytes(Array(repeating: 2, count: 48))),
        ]).encoded()
        let replaced = knobs { $0.authenticatorData = { Array($0.prefix(37 + 18 + 32)) + es384 } }
        #expect(refusal { _ = try ceremonies.register(knobs: replaced) } == .unsupportedKey)
        // A P-256 point that is not on the curve.
        let offCurve = CBORValue.map([
            CBORMapEntry(CBORValue(1), CBORValue(2)), CBORMapEntry(CBORValue(3), CBORValue(-7)),
            CBORMapEntry(CBORValue(-1), CBORValue(1)),
            CBORMapEntry(CBORValue(-2), .bytes(Array(repeating: 1, count: 32))),
            CBORMapEntry(CBORValue(-3), .bytes(Array(repeating: 2, count: 32))),
        ]).encoded()
        let bad = knobs { $0.authenticatorData = { Array($0.prefix(37 + 18 + 32)) + offCurve } }
        #expect(refusal { _ = try ceremonies.register(knobs: bad) } == .unsupportedKey)
    }

    @Test func refusesCredentialIDsTooLongOrNotTheResponses() throws {
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.credentialIDLength = 1024 }) }
                == .credentialIDTooLong)
        #expect(try ceremonies.register(knobs: knobs { $0.credentialIDLength = 1023 }).id.count == 1023)
        let (json, challenge) = try ceremonies.registrationResponse()
        let other = JSONValue.string(Base64URL.encode([1, 2, 3]))
        let both = replacing(replacing(json, ["id"], with: other), ["rawId"], with: other)
        #expect(
            refusal {
                _ = try WebAuthnVerifier.verifyRegistration(
                    RegistrationResponse.parse(both), challenge: challenge, relyingParty: ceremonies.relyingParty)
            } == .credentialIDMismatch)
        #expect(
            refusal { _ = try RegistrationResponse.parse(replacing(json, ["id"], with: other)) }
                == .credentialIDMismatch)
    }

    @Test func attestationFollowsThePreference() throws {
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.attestation = .packedSelfWrongAlgorithm }) }
                == .attestationInvalid)
        #expect(
            refusal { _ = try ceremonies.register(knobs: knobs { $0.attestation = .packedSelfBadSignature }) }
                == .attestationInvalid)
        let u2f = knobs {
            $0.attestation = .custom(
                format: "fido-u2f",
                statement: .map([
                    CBORMapEntry(.text("sig"), .bytes([0x30])), CBORMapEntry(.text("x5c"), .array([.bytes([0x30])])),
                ]))
        }
        #expect(refusal { _ = try ceremonies.register(knobs: u2f) } == .attestationNotAllowed)
        var direct = ceremonies
        direct.relyingParty.attestation = .direct
        let stored = try direct.register(knobs: u2f)
        #expect(stored.attestationFormat == "fido-u2f" && !stored.attestationVerified)
        let fullPacked = knobs {
            $0.attestation = .custom(
                format: "packed",
                statement: .map([
                    CBORMapEntry(.text("alg"), CBORValue(-7)), CBORMapEntry(.text("sig"), .bytes([0x30])),
                    CBORMapEntry(.text("x5c"), .array([.bytes([0x30])])),
                ]))
        }
        #expect(refusal { _ = try ceremonies.register(knobs: fullPacked) } == .attestationNotAllowed)
        #expect(try direct.register(knobs: fullPacked).attestationVerified == false)
        let unknown = knobs { $0.attestation = .custom(format: "made-up", statement: .map([])) }
        #expect(refusal { _ = try direct.register(knobs: unknown) } == .attestationInvalid)
        let noneWithMembers = knobs {
            $0.attestation = .custom(format: "none", statement: .map([CBORMapEntry(.text("x"), .null)]))
        }
        #expect(refusal { _ = try ceremonies.register(knobs: noneWithMembers) } == .malformedAttestation)
    }

    @Test func refusesMalformedAndOversizedCBOR() {
        func rewritten(_ change: @escaping @Sendable ([UInt8]) -> [UInt8]) -> WebAuthnError.Code? {
            refusal { _ = try ceremonies.register(knobs: knobs { $0.attestationObject = change }) }
        }
        #expect(rewritten { $0 + [0x00] } == .malformedCBOR)
        #expect(rewritten { Array($0.dropLast()) } == .malformedCBOR)
        // The same map with an indefinite length (0xBF ... 0xFF).
        #expect(rewritten { [0xBF] + $0.dropFirst() + [0xFF] } == .malformedCBOR)
        // A map head with a non-shortest count (0xB8 0x03 for 3 entries).
        #expect(rewritten { [0xB8, 0x03] + $0.dropFirst() } == .malformedCBOR)
        #expect(rewritten { _ in CBORValue.bytes(Array(repeating: 0, count: 70_000)).encoded() } == .malformedCBOR)
        #expect(rewritten { _ in CBORValue.array([]).encoded() } == .malformedAttestation)
        // fmt twice.
        #expect(
            rewritten { [0xA4, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + $0.dropFirst() }
                == .malformedCBOR)
    }

    @Test func refusesMalformedJSONAndBase64URL() throws {
        let (json, _) = try ceremonies.registrationResponse()
        let cases: [(JSONValue, WebAuthnError.Code)] = [
            (.array([]), .malformedCredential),
            (replacing(json, ["type"], with: "password"), .malformedCredential),
            (replacing(json, ["response"], with: nil), .malformedCredential),
            (replacing(json, ["rawId"], with: .string((json["rawId"]?.stringValue ?? "") + "=")), .malformedCredential),
            (replacing(json, ["response", "clientDataJSON"], with: "a+b/"), .malformedCredential),
            (replacing(json, ["response", "attestationObject"], with: 5), .malformedCredential),
            (replacing(json, ["response", "transports"], with: [1]), .malformedCredential),
            (replacing(json, ["rawId"], with: ""), .malformedCredential),
        ]
        for (body, code) in cases {
            #expect(refusal { _ = try RegistrationResponse.parse(body) } == code, "\(body.serialized().prefix(80))")
        }
    }
}
