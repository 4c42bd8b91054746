import AuthFlowTestSupport
import Testing

@testable import AuthFlowJOSE
@testable import AuthFlowWebAuthn

/// WebAuthn Level 3 §7.2 against the software authenticator: each check accepts the correct assertion and
/// refuses the one broken thing with its code.
@Suite("Authentication (§7.2)")
struct AuthenticationTests {
    let ceremonies = Ceremonies()

    @Test(arguments: [COSEAlgorithm.es256, .edDSA, .rs256])
    func verifiesEachAlgorithmAndCountsUp(_ algorithm: COSEAlgorithm) throws {
        let ceremonies = Ceremonies(algorithms: [algorithm])
        var credential = try ceremonies.stored()
        let first = try ceremonies.authenticate(credential)
        #expect(first.credentialID == credential.id && first.signCount == 1 && first.userVerified && !first.backedUp)
        credential.signCount = first.signCount
        #expect(try ceremonies.authenticate(credential).signCount == 2)
    }

    @Test func acceptsCountersThatStayZero() throws {
        let credential = try ceremonies.stored()
        let zero = knobs { $0.signCountStep = 0 }
        #expect(try ceremonies.authenticate(credential, knobs: zero).signCount == 0)
        #expect(try ceremonies.authenticate(credential, knobs: zero).signCount == 0)
    }

    @Test func refusesACounterThatDidNotIncrease() throws {
        var credential = try ceremonies.stored()
        credential.signCount = 5
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.signCount = 5 }) }
                == .signCountNotIncreased)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.signCount = 4 }) }
                == .signCountNotIncreased)
        // A counter that drops to zero after it was counting.
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.signCount = 0 }) }
                == .signCountNotIncreased)
        #expect(try ceremonies.authenticate(credential, knobs: knobs { $0.signCount = 6 }).signCount == 6)
    }

    @Test func refusesTheClientDataChecks() throws {
        let credential = try ceremonies.stored()
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.type = "webauthn.create" }) }
                == .wrongCeremonyType)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.challenge = [9] }) }
                == .challengeMismatch)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, origin: "https://evil.example") } == .originMismatch)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.crossOrigin = true }) }
                == .crossOrigin)
    }

    @Test func refusesTheAuthenticatorDataChecks() throws {
        let credential = try ceremonies.stored()
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.rpIDForHash = "evil.example" }) }
                == .rpIDMismatch)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.userPresent = false }) }
                == .userNotPresent)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.userVerified = false }) }
                == .userNotVerified)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.backedUp = true }) }
                == .backupStateInvalid)
        // BE must stay what it was at registration.
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.backupEligible = true }) }
                == .backupStateInvalid)
        #expect(
            refusal {
                _ = try ceremonies.authenticate(credential, knobs: knobs { $0.authenticatorData = { $0 + [0] } })
            } == .malformedAuthenticatorData)
        #expect(
            refusal {
                _ = try ceremonies.authenticate(
                    credential, knobs: knobs { $0.authenticatorData = { Array($0.prefix(30)) } })
            } == .malformedAuthenticatorData)
        // ED set without extensions, and with extensions that are not strict CBOR (an indefinite map).
        let noExtensions = knobs { $0.authenticatorData = { $0.prefix(32) + [$0[32] | 0x80] + $0.suffix(4) } }
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: noExtensions) } == .malformedAuthenticatorData)
        let indefinite = knobs {
            $0.authenticatorData = { $0.prefix(32) + [$0[32] | 0x80] + $0.suffix(4) + [0xBF, 0xFF] }
        }
        #expect(refusal { _ = try ceremonies.authenticate(credential, knobs: indefinite) } == .malformedCBOR)
        let extensions = knobs {
            $0.authenticatorData = {
                $0.prefix(32) + [$0[32] | 0x80] + $0.suffix(4)
                    + CBORValue.map([CBORMapEntry(.text("credProtect"), CBORValue(2))]).encoded()
            }
        }
        #expect(try ceremonies.authenticate(credential, knobs: extensions).credentialID == credential.id)
        var preferred = ceremonies
        preferred.relyingParty.userVerification = .preferred
        #expect(try preferred.authenticate(credential, knobs: knobs { $0.userVerified = false }).userVerified == false)
    }

    @Test func refusesABadSignature() throws {
        for algorithm in [COSEAlgorithm.es256, .edDSA, .rs256] {
            let ceremonies = Ceremonies(algorithms: [algorithm])
            let credential = try ceremonies.stored()
            #expect(
                refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.corruptSignature = true }) }
                    == .signatureInvalid)
        }
    }

    @Test func refusesAnES256SignatureThatIsNotStrictDER() throws {
        let credential = try ceremonies.stored()
        let (json, challenge) = try ceremonies.assertionResponse()
        let signature = try Base64URL.decode(json["response"]?["signature"]?.stringValue ?? "")
        // The same r and s with a long-form sequence length (0x81 for a length under 128).
        let longForm = [0x30, 0x81] + signature.dropFirst()
        // r‖s raw, as JOSE would have it.
        let raw = try #require(
            signature.withUnsafeBufferPointer { ECDSASignatureEncoding.raw(fromDER: $0, half: 32) })
        for bad in [longForm, raw, signature + [0]] {
            let body = replacing(json, ["response", "signature"], with: .string(Base64URL.encode(bad)))
            #expect(
                refusal {
                    _ = try WebAuthnVerifier.verifyAuthentication(
                        AuthenticationResponse.parse(body), challenge: challenge, relyingParty: ceremonies.relyingParty,
                        credential: credential)
                } == .signatureInvalid)
        }
    }

    @Test func refusesAnotherUsersOrAnotherCredential() throws {
        let credential = try ceremonies.stored()
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.userHandle = [1, 2, 3] }) }
                == .userHandleMismatch)
        #expect(
            refusal { _ = try ceremonies.authenticate(credential, knobs: knobs { $0.userHandle = .some(nil) }) }
                == .userHandleMismatch)
        var other = credential
        other.id = [1, 2, 3]
        #expect(refusal { _ = try ceremonies.authenticate(other) } == .credentialIDMismatch)
        var otherUser = credential
        otherUser.userHandle = [8, 8]
        #expect(refusal { _ = try ceremonies.authenticate(otherUser) } == .userHandleMismatch)
        var broken = credential
        broken.publicKey = [0xA0]
        #expect(refusal { _ = try ceremonies.authenticate(broken) } == .unsupportedKey)
    }

    @Test func refusesMalformedJSONAndOversizedFields() throws {
        _ = try ceremonies.stored()
        let (json, _) = try ceremonies.assertionResponse()
        let long = JSONValue.string(Base64URL.encode(Array(repeating: 1, count: WebAuthnLimits.authenticatorData + 1)))
        let cases: [(JSONValue, WebAuthnError.Code)] = [
            (replacing(json, ["response", "signature"], with: nil), .malformedCredential),
            (replacing(json, ["response", "authenticatorData"], with: "!!"), .malformedCredential),
            (replacing(json, ["response", "authenticatorData"], with: long), .malformedAuthenticatorData),
            (
                replacing(
                    json, ["response", "userHandle"], with: .string(Base64URL.encode(Array(repeating: 1, count: 65)))),
                .malformedCredential
            ),
            (
                replacing(json, ["rawId"], with: .string(Base64URL.encode(Array(repeating: 1, count: 1024)))),
                .credentialIDTooLong
            ),
        ]
        for (body, code) in cases {
            #expect(refusal { _ = try AuthenticationResponse.parse(body) } == code)
        }
        #expect(
            try AuthenticationResponse.parse(replacing(json, ["response", "userHandle"], with: .null)).userHandle == nil
        )
    }
}
