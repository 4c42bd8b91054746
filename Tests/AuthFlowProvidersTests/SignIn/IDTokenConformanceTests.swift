import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

/// The OpenID Foundation RP conformance cases that apply to a code-flow relying party, played by an
/// interposer that rewrites the genuine id_token on its way from the sandbox's token endpoint (re-signing
/// with the sandbox's own key where the case needs a valid signature). Every case must be refused with its
/// typed error, and nothing more may be requested with the refused response (no userinfo call).
@Suite("OpenID Connect RP conformance end to end", .serialized) struct IDTokenConformanceTests {
    /// The id_token-issuing providers: built-in Apple and Google, and the generic plugin (which also calls
    /// userinfo) over the sandbox's Google emulator.
    enum Target: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case google
        case apple
        case corp = "corp-proxied"

        var testDescription: String { rawValue }
        var sandbox: SandboxProvider { self == .apple ? .apple : .google }
        var tokenPath: String { self == .apple ? "/apple/auth/token" : "/google/token" }
    }

    /// One way of breaking the id_token, and the refusal it must meet.
    enum Mutation: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case issuerPlusOne, audiencePlusOne, audienceRemoved, subjectRemoved, issuedAtRemoved, noncePlusOne,
            nonceRemoved, signatureXOR, algNone, expired, hmacWithPublicKey

        var testDescription: String { rawValue }

        var expected: (joseCode: JOSEError.Code, claim: String?) {
            switch self {
            case .issuerPlusOne: (.issuerMismatch, "iss")
            case .audiencePlusOne: (.audienceMismatch, "aud")
            case .audienceRemoved: (.missingClaim, "aud")
            case .subjectRemoved: (.missingClaim, "sub")
            case .issuedAtRemoved: (.missingClaim, "iat")
            case .noncePlusOne: (.nonceMismatch, "nonce")
            case .nonceRemoved: (.missingClaim, "nonce")
            case .signatureXOR: (.invalidSignature, nil)
            case .algNone: (.unsignedTokenNotAllowed, nil)
            case .expired: (.tokenExpired, "exp")
            case .hmacWithPublicKey: (.algorithmNotAllowed, nil)
            }
        }

        func apply(_ token: String, key: JWK) throws -> String {
            func appendOne(_ claim: String) -> (inout [String: JSONValue]) -> Void {
                { claims in claims[claim] = .string((claims[claim]?.stringValue ?? "") + "1") }
            }
            switch self {
            case .issuerPlusOne: return try TokenTampering.resigned(token, key: key, appendOne("iss"))
            case .audiencePlusOne: return try TokenTampering.resigned(token, key: key, appendOne("aud"))
            case .audienceRemoved: return try TokenTampering.resigned(token, key: key) { $0["aud"] = nil }
            case .subjectRemoved: return try TokenTampering.resigned(token, key: key) { $0["sub"] = nil }
            case .issuedAtRemoved: return try TokenTampering.resigned(token, key: key) { $0["iat"] = nil }
            case .noncePlusOne: return try TokenTampering.resigned(token, key: key, appendOne("nonce"))
            case .nonceRemoved: return try TokenTampering.resigned(token, key: key) { $0["nonce"] = nil }
            case .signatureXOR: return try TokenTampering.corruptedSignature(token)
            case .algNone: return try TokenTampering.unsigned(token)
            case .expired:
                return try TokenTampering.resigned(token, key: key) { claims in
                    let issued = (claims["iat"]?.int64Value ?? 0) - 7200
                    claims["iat"] = .integer(issued)
                    claims["exp"] = .integer(issued + 3600)
                }
            case .hmacWithPublicKey: return try TokenTampering.hmacSigned(token, key: key)
            }
        }
    }

    @Test(arguments: Target.allCases, Mutation.allCases)
    func refusesTheTamperedIDToken(target: Target, mutation: Mutation) async throws {
        try await World.run { world in
            let key = try E2E.signingKey(target.sandbox)
            world.interposer.onResponse { path, response in
                guard path == target.tokenPath else { return }
                TokenTampering.rewritingIDToken(&response) { try mutation.apply($0, key: key) }
            }
            let attempt = try await world.signIn(target.rawValue)
            let error = try #require(attempt.error)
            #expect(error.code == .idTokenInvalid)
            #expect(error.joseCode == mutation.expected.joseCode)
            if let claim = mutation.expected.claim { #expect(error.claim == claim) }
            #expect(error.trace.last?.step == .idTokenVerification)
            // Refused means: nothing more is asked with that response.
            #expect(world.sandbox.requestCounts(for: target.sandbox).userinfo == 0)
        }
    }

    @Test(arguments: Target.allCases)
    func acceptsTheUntamperedTokenThroughTheSameInterposer(target: Target) async throws {
        try await World.run { world in
            let key = try E2E.signingKey(target.sandbox)
            // Re-signing the genuine claims with the genuine key must change nothing.
            world.interposer.onResponse { path, response in
                guard path == target.tokenPath else { return }
                TokenTampering.rewritingIDToken(&response) { try TokenTampering.resigned($0, key: key) { _ in } }
            }
            let identity = try await world.signIn(target.rawValue).identity
            #expect(identity.subject == SandboxIdentity.presets(for: target.sandbox)[0].subject)
        }
    }

    @Test(arguments: Target.allCases)
    func acceptsATokenWithoutKidWhenTheKeySetHasOneFittingKey(target: Target) async throws {
        try await World.run { world in
            let key = try E2E.signingKey(target.sandbox)
            world.interposer.onResponse { path, response in
                guard path == target.tokenPath else { return }
                TokenTampering.rewritingIDToken(&response) { try TokenTampering.resignedWithoutKeyID($0, key: key) }
            }
            let identity = try await world.signIn(target.rawValue).identity
            #expect(identity.subject == SandboxIdentity.presets(for: target.sandbox)[0].subject)
        }
    }

    @Test func refusesAUserinfoSubjectThatDiffersFromTheIDToken() async throws {
        try await World.run { world in
            world.interposer.onResponse { path, response in
                guard path == "/google/v1/userinfo" else { return }
                TokenTampering.rewritingJSON(&response) {
                    $0["sub"] = .string(($0["sub"]?.stringValue ?? "") + "invalid")
                }
            }
            let attempt = try await world.signIn("corp-proxied")
            #expect(attempt.error?.code == .userinfoSubjectMismatch)
            #expect(world.sandbox.requestCounts(for: .google).userinfo == 1)
        }
    }
}
