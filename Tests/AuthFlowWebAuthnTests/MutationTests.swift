import AuthFlowJOSE
import AuthFlowTestSupport
import Testing

@testable import AuthFlowWebAuthn

/// Deterministic mutations of valid responses (bytes flipped, cut, inserted) through the whole verifier:
/// every outcome is a verified credential (a registration whose change the checks cannot see) or a
/// `WebAuthnError` with a message, never a crash; a changed assertion never verifies. The libFuzzer harness
/// `FuzzCBOR` covers the CBOR decoder itself.
@Suite("Mutated responses")
struct MutationTests {
    /// SplitMix64: the same mutations on every run.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(bound, 1))) }
    }

    static func mutate(_ bytes: [UInt8], _ generator: inout Generator) -> [UInt8] {
        var bytes = bytes
        for _ in 0...generator.below(3) {
            guard !bytes.isEmpty else { return [UInt8(truncatingIfNeeded: generator.next())] }
            let index = generator.below(bytes.count)
            switch generator.below(4) {
            case 0: bytes[index] ^= UInt8(1 << generator.below(8))
            case 1: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            case 2: bytes.removeSubrange(index...)
            default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
            }
        }
        return bytes
    }

    @Test func mutatedAttestationObjectsGiveTypedErrors() throws {
        let ceremonies = Ceremonies()
        var generator = Generator(state: 36)
        for algorithm in [COSEAlgorithm.es256, .edDSA, .rs256] {
            let packed = knobs {
                $0.attestation = .packedSelf
                $0.forceAlgorithm = algorithm
            }
            let (json, challenge) = try ceremonies.registrationResponse(knobs: packed)
            let object = try Base64URL.decode(json["response"]?["attestationObject"]?.stringValue ?? "")
            for _ in 0..<400 {
                let mutated = Self.mutate(object, &generator)
                let body = replacing(
                    json, ["response", "attestationObject"], with: .string(Base64URL.encode(mutated)))
                do {
                    _ = try WebAuthnVerifier.verifyRegistration(
                        RegistrationResponse.parse(body), challenge: challenge, relyingParty: ceremonies.relyingParty)
                } catch {
                    // Typed throws: the error is a WebAuthnError by construction; it says what failed.
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }

    @Test func mutatedAssertionsGiveTypedErrors() throws {
        let ceremonies = Ceremonies()
        let credential = try ceremonies.stored()
        var generator = Generator(state: 37)
        let (json, challenge) = try ceremonies.assertionResponse()
        for member in ["authenticatorData", "clientDataJSON", "signature"] {
            let original = try Base64URL.decode(json["response"]?[member]?.stringValue ?? "")
            for _ in 0..<300 {
                let mutated = Self.mutate(original, &generator)
                if mutated == original { continue }
                let body = replacing(json, ["response", member], with: .string(Base64URL.encode(mutated)))
                do {
                    _ = try WebAuthnVerifier.verifyAuthentication(
                        AuthenticationResponse.parse(body), challenge: challenge, relyingParty: ceremonies.relyingParty,
                        credential: credential)
                    Issue.record("a mutated \(member) verified")
                } catch {
                    // Typed throws: the error is a WebAuthnError by construction; it says what failed.
                    #expect(!error.message.isEmpty)
                }
            }
        }
    }
}
