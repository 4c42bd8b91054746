/// Proof Key for Code Exchange (RFC 7636) with the S256 method.
package struct PKCE: Sendable, Equatable {
    /// The `code_verifier`, kept server-side and sent with the token request.
    package let verifier: String
    /// The `code_challenge`: base64url(SHA-256(verifier)).
    package let challenge: String
    /// Always `"S256"`.
    package var method: String { "S256" }

    /// A fresh verifier from 32 random bytes (43 characters) and its challenge.
    package static func generate(random: some SecureRandom) -> PKCE {
        var bytes = random.bytes(32)
        if bytes.count < 32 { bytes += SystemRandom().bytes(32 - bytes.count) }
        let verifier = Base64URL.encode(bytes.prefix(32))
        return PKCE(checkedVerifier: verifier)
    }

    /// Wraps an existing verifier.
    /// - Throws: `JOSEError` `.invalidClaim` (claim `code_verifier`) unless it is 43–128
    ///   characters of `A–Z a–z 0–9 - . _ ~`.
    package init(verifier: String) throws(JOSEError) {
        let bytes = Array(verifier.utf8)
        guard (43...128).contains(bytes.count) else {
            throw JOSEError(
                .invalidClaim, "expected a code_verifier of 43 to 128 characters, found \(bytes.count)",
                claim: "code_verifier")
        }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                continue
            default:
                throw JOSEError(
                    .invalidClaim, "expected only A-Z a-z 0-9 - . _ ~ in a code_verifier, found another character",
                    claim: "code_verifier")
            }
        }
        self.init(checkedVerifier: verifier)
    }

    private init(checkedVerifier verifier: String) {
        self.verifier = verifier
        self.challenge = Self.challenge(for: verifier)
    }

    /// The S256 challenge of a verifier: base64url(SHA-256(ASCII(verifier))).
    package static func challenge(for verifier: String) -> String {
        Base64URL.encode(Digest.sha256(Array(verifier.utf8)))
    }
}
