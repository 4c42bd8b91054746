package import AuthFlowJOSE
import Synchronization

/// A WebAuthn authenticator written in software for tests: it answers creation and request options JSON
/// (what the server sends) with RegistrationResponseJSON and AuthenticationResponseJSON (what a browser's
/// `credential.toJSON()` gives), for the origin it is told the page has.
///
/// Keys are ES256, EdDSA or RS256, generated with the JOSE layer; credentials are discoverable (kept here
/// with their user handle) and each has a signature counter. ``Knobs`` break one thing at a time (origin,
/// `crossOrigin`, type, challenge, `rpIdHash`, flags, counter, signature, attestation, raw bytes), so each
/// of the relying party's checks can be shown to refuse. It shares no code with the verifier: it builds
/// its CBOR with the encoder and its JSON by hand.
package final class SoftwareAuthenticator: Sendable {
    /// A credential the authenticator holds.
    package struct Credential: Sendable {
        /// The credential id.
        package var id: [UInt8]
        /// The RP ID it is scoped to.
        package var rpID: String
        /// The user handle it was created for.
        package var userHandle: [UInt8]
        /// The private key.
        package var key: JWK
        /// The key's algorithm.
        package var algorithm: COSEAlgorithm
        /// The signature counter (the last value used).
        package var signCount: UInt32
    }

    /// The attestation statement a registration carries.
    package enum Attestation: Sendable {
        /// `fmt: none`, an empty statement.
        case none
        /// `packed` self attestation: signed with the credential key.
        case packedSelf
        /// `packed` self attestation naming another `alg` than the key's.
        case packedSelfWrongAlgorithm
        /// `packed` self attestation whose signature is corrupted.
        case packedSelfBadSignature
        /// Any format and statement, as given.
        case custom(format: String, statement: CBORValue)
    }

    /// What to produce differently from a correct authenticator and client; the defaults are correct.
    package struct Knobs: Sendable {
        /// `clientDataJSON.type` instead of the ceremony's.
        package var type: String?
        /// The challenge to sign instead of the options'.
        package var challenge: [UInt8]?
        /// `crossOrigin` written into the client data (absent when nil).
        package var crossOrigin: Bool? = false
        /// The RP ID whose hash goes into the authenticator data, instead of the options'.
        package var rpIDForHash: String?
        /// Flag UP.
        package var userPresent = true
        /// Flag UV.
        package var userVerified = true
        /// Flag BE.
        package var backupEligible = false
        /// Flag BS.
        package var backedUp = false
        /// Flag AT and the attested credential data at registration.
        package var attestedCredentialData = true
        /// The counter to write instead of the next one (the credential keeps it).
        package var signCount: UInt32?
        /// How much the counter grows per assertion (0: always zero, as synced passkeys do).
        package var signCountStep: UInt32 = 1
        /// Flip a bit of the assertion signature.
        package var corruptSignature = false
        /// The attestation at registration.
        package var attestation: Attestation = .none
        /// The key algorithm regardless of `pubKeyCredParams`.
        package var forceAlgorithm: COSEAlgorithm?
        /// The length of a new credential id.
        package var credentialIDLength = 32
        /// The assertion's `userHandle` instead of the credential's; `.some(nil)` omits it.
        package var userHandle: [UInt8]??
        /// Rewrites the attestation object bytes before they are encoded.
        package var attestationObject: (@Sendable ([UInt8]) -> [UInt8])?
        /// Rewrites the authenticator data bytes (after signing for an assertion, before for a registration).
        package var authenticatorData: (@Sendable ([UInt8]) -> [UInt8])?
        /// Rewrites the clientDataJSON bytes (before signing).
        package var clientDataJSON: (@Sendable ([UInt8]) -> [UInt8])?

        /// Correct behaviour.
        package init() {}
    }

    /// Why the authenticator (or the client in front of it) refused the options.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        /// What was refused.
        package var description: String
    }

    /// The algorithms this authenticator supports, in its order of preference.
    package let algorithms: [COSEAlgorithm]
    /// The AAGUID it reports.
    package let aaguid: [UInt8]
    let state = Mutex<[Credential]>([])

    /// An authenticator supporting `algorithms`, reporting `aaguid` (zeros by default).
    package init(
        algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256], aaguid: [UInt8] = Array(repeating: 0, count: 16)
    ) {
        self.algorithms = algorithms
        self.aaguid = aaguid
    }

    /// The credentials held, oldest first.
    package var credentials: [Credential] { state.withLock { $0 } }

    /// Removes every credential (a reset authenticator).
    package func removeAll() { state.withLock { $0.removeAll() } }
}
