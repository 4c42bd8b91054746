import AuthFlowJOSE
import AuthFlowTestSupport
import Testing

@testable import AuthFlowWebAuthn

/// A relying party, its authenticator and one ceremony at a time, for the verifier's tests.
struct Ceremonies {
    static let origin = "https://example.com"
    var relyingParty = WebAuthnRelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])
    let authenticator: SoftwareAuthenticator
    let user = WebAuthnUser(handle: Array(repeating: 7, count: 16), name: "ada", displayName: "Ada")

    init(algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256]) {
        authenticator = SoftwareAuthenticator(algorithms: algorithms)
    }

    /// The registration response for fresh options, and the challenge.
    func registrationResponse(
        knobs: SoftwareAuthenticator.Knobs = .init(), origin: String = origin
    ) throws -> (json: JSONValue, challenge: [UInt8]) {
        let challenge = SystemRandom().bytes(32)
        let options = WebAuthnOptions.creation(
            relyingParty: relyingParty, user: user, challenge: challenge, exclude: [], timeout: .seconds(300))
        return (try authenticator.register(options: options, origin: origin, knobs: knobs), challenge)
    }

    func register(knobs: SoftwareAuthenticator.Knobs = .init(), origin: String = origin) throws -> RegisteredCredential
    {
        let (json, challenge) = try registrationResponse(knobs: knobs, origin: origin)
        return try WebAuthnVerifier.verifyRegistration(
            RegistrationResponse.parse(json), challenge: challenge, relyingParty: relyingParty)
    }

    /// Registers with a correct authenticator and returns what the store would keep.
    func stored(knobs: SoftwareAuthenticator.Knobs = .init()) throws -> StoredCredential {
        let credential = try register(knobs: knobs)
        return StoredCredential(
            id: credential.id, publicKey: credential.publicKey, signCount: credential.signCount,
            backupEligible: credential.backupEligible, userHandle: user.handle)
    }

    func assertionResponse(knobs: SoftwareAuthenticator.Knobs = .init(), origin: String = origin) throws -> (
        json: JSONValue, challenge: [UInt8]
    ) {
        let challenge = SystemRandom().bytes(32)
        let options = WebAuthnOptions.request(relyingParty: relyingParty, challenge: challenge, timeout: .seconds(300))
        return (try authenticator.authenticate(options: options, origin: origin, knobs: knobs), challenge)
    }

    func authenticate(
        _ credential: StoredCredential, knobs: SoftwareAuthenticator.Knobs = .init(), origin: String = origin
    ) throws -> VerifiedAssertion {
        let (json, challenge) = try assertionResponse(knobs: knobs, origin: origin)
        return try WebAuthnVerifier.verifyAuthentication(
            AuthenticationResponse.parse(json), challenge: challenge, relyingParty: relyingParty,
            credential: credential)
    }
}

/// The code of the `WebAuthnError` that `body` throws, or nil when it does not throw one.
func refusal(_ body: () throws -> Void) -> WebAuthnError.Code? {
    do {
        try body()
        return nil
    } catch let error as WebAuthnError {
        return error.code
    } catch {
        Issue.record("expected a WebAuthnError, found \(error)")
        return nil
    }
}

func knobs(_ change: (inout SoftwareAuthenticator.Knobs) -> Void) -> SoftwareAuthenticator.Knobs {
    var knobs = SoftwareAuthenticator.Knobs()
    change(&knobs)
    return knobs
}

/// Sets `path` (member names) inside a JSON object to `value`.
func replacing(_ json: JSONValue, _ path: [String], with value: JSONValue?) -> JSONValue {
    guard let first = path.first, var members = json.objectValue else { return json }
    if path.count == 1 {
        members[first] = value
    } else {
        members[first] = replacing(members[first] ?? .null, Array(path.dropFirst()), with: value)
    }
    return .object(members)
}

func hex(_ text: String) -> [UInt8] { Hex.decode(text) ?? [] }
